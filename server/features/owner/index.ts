/**
 * The owner of an alert link, as every feature that takes a personal token asks about them: who
 * the token belongs to and whether they may alert now (owners.ts), the owner's proof beside the
 * link and the limits it lifts (proof.ts, proof-routes.ts), and the language their contacts are
 * written to in. The device key route is registered by the alerts plugin, beside the alert routes
 * the key proves the owner on.
 */
export {
  activeOwner,
  admitted,
  type OwnerDeps,
  ownerLanguage,
  ownerOf,
  ownerWithPlan,
  requestingOwner,
  storedKey,
  type TokenOwner,
  unknownToken,
} from './owners.js';
export { deviceKeyRow } from './proof.js';
export {
  carriesOwnerProof,
  default as deviceKeyRoutes,
  perTokenClient,
  provenForPathToken,
  requireOwnerProof,
  tokenHash,
} from './proof-routes.js';
export { ownerByToken } from './repository.js';
