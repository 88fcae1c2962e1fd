/**
 * What other features use of accounts (the routes are registered by the app): the owner's row,
 * the hash every stored secret goes through, the e-mails' rendering and their bursts, and the
 * one-time tokens and device keys that "this wasn't me" ends.
 */
export { deviceName } from './device-names.js';
export { mailTime, render, SPACING_NOTE, type Template } from './mail.js';
export { MAIL_SUMMARY_TIMER, noteMailEvent } from './mail-bursts.js';
export { pruneMailBursts } from './mail-bursts-repository.js';
export { summaryTimer } from './mail-summaries.js';
export { verifyPassword } from './passwords.js';
export { registrationSummary } from './registration.js';
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
