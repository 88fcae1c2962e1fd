import { existsSync } from 'node:fs';
import path from 'node:path';

/** The e2e suite runs against the production build; `npm run test:e2e` builds it first. */
export default function globalSetup() {
  const index = path.join(process.env.ALERTA_DIST_DIR ?? path.resolve(import.meta.dirname, '../../dist'), 'index.html');
  if (!existsSync(index)) throw new Error('No build in dist/: run "npm run build" first (npm run test:e2e does).');
}
