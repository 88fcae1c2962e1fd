/** What the app's manifest and the per-token emergency manifests share: product name, colours, icons. */

export const PRODUCT_NAME = 'Alerta';
export const THEME_COLOR = '#c62828';
export const BACKGROUND_COLOR = '#ffffff';

/** PNG icons generated from public/favicon.svg by scripts/icons.mjs. */
export const MANIFEST_ICONS = [
  { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
  { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
  { src: '/icons/maskable-192.png', sizes: '192x192', type: 'image/png', purpose: 'maskable' },
  { src: '/icons/maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
] as const;
