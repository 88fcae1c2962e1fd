/**
 * What other features use of accounts (the routes are registered by the app): the owner's row,
 * the hash every stored secret goes through, the e-mails' rendering and their bursts, and the
 * one-time tokens and device keys that "this wasn't me" ends.
 */
export { deviceName } from './device-names.js';
export { mailTime, render, SPACING_NOTE, type Template } from './mail.js';
export { noteMailEvent } from './mail-bursts.js';
export { verifyPassword } from './passwords.js';
export {
  consumeAllOneTimeTokens,
  consumeOneTimeToken,
  createOneTimeToken,
  deleteOneTimeTokens,
  endAllDeviceKeys,
  findById,
  findOneTimeToken,
  hashSecret,
  oneTimeTokensOf,
  replaceToken,
} from './repository.js';
