/** What other features use of the development tools (the routes are registered by the app): the local-only guard. */
export { requireLocal } from './outbox-routes.js';
