/**
 * What other features use of billing (the routes are registered by the app): the owner's plan as
 * it is now, the public terms, the SMS usage metered for each SMS and call, and the cancellation
 * an account's deletion asks of the provider.
 */
export { cancelAtProvider } from './cancel.js';
export { publicConfig } from './plans.js';
export { firstRealAlert } from './repository.js';
export { currentOf, profileOf, type SubscriptionProfile, subscriptionProfile } from './subscriptions.js';
export {
  insertSmsUsage,
  recordSmsUsage,
  reportSmsUsage,
  usageRows,
  type WrittenUsage,
  writtenUsage,
} from './usage.js';
