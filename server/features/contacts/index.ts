/**
 * What other features use of contacts (the routes are registered by the app): the contacts an
 * alert goes to, and the owner's lock that orders writes to them.
 */
export { alertedContacts, lockUser } from './repository.js';
