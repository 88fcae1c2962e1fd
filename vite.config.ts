import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { prerenderPages } from './scripts/prerender-pages.js';
import {
  emergencyPageAlone,
  inlineEmergencyCss,
  preactForEmergencyPage,
  precompress,
  sharedHead,
} from './scripts/vite-plugins.js';

const apiPort = Number(process.env.API_PORT ?? 8081);

export default defineConfig({
  plugins: [
    sharedHead(),
    emergencyPageAlone(),
    preactForEmergencyPage(),
    react(),
    inlineEmergencyCss(),
    precompress(),
    prerenderPages(),
    VitePWA({
      strategies: 'injectManifest',
      srcDir: 'sw',
      filename: 'sw.ts',
      registerType: 'prompt',
      injectRegister: false,
      // The app's manifest lives in public/; the emergency page gets one per token from the server.
      manifest: false,
      injectManifest: {
        // A classic script in one file, as every engine registers it (no module workers needed).
        rollupFormat: 'iife',
        globPatterns: ['**/*.{js,css,html,svg,png,ico,webmanifest,woff2}'],
        // The drawn pages are for the server to send; the worker answers with index.html.
        globIgnores: ['**/*.map', 'sw.js', 'workbox-*.js', 'pages/**'],
      },
      devOptions: { enabled: false },
    }),
  ],
  build: {
    sourcemap: false,
    // The polyfill would be one more script shared by every page, the emergency page's only one
    // (emergencyPageAlone), which preloads nothing. Safari before 17 and Firefox before 115 do
    // not preload modules: there the app and the live page fetch their shared chunks once the
    // entry names them, a round trip later; nothing else changes.
    modulePreload: { polyfill: false },
    rollupOptions: {
      input: { main: 'index.html', alert: 'alert.html', live: 'live.html' },
    },
  },
  server: {
    proxy: {
      '/api': `http://127.0.0.1:${apiPort}`,
      '/dev': `http://127.0.0.1:${apiPort}`,
    },
  },
});
