// Re-exported from here so that openapi-typescript loads this folder's TypeScript 5 (package.json).
export { astToString, default } from 'openapi-typescript';
