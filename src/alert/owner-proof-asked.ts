/**
 * Whether a change only the owner may make ("I'm safe", a position on the owner's alert) was
 * refused on this page for want of the owner's proof: the page then offers its sign-in, even
 * where a key is kept (it may have been removed or be another account's).
 */
let asked = false;
const listeners = new Set<() => void>();

/** Says a change was refused with 403 `owner_proof_required`. */
export function askOwnerToSignIn(): void {
  if (asked) return;
  asked = true;
  for (const listener of listeners) listener();
}

/** True once a change was refused for want of the owner's proof. */
export const ownerAskedToSignIn = () => asked;

/** Calls `listener` when the owner is asked to sign in; returns the unsubscribe. */
export function onAskedToSignIn(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Forgets the question (tests). */
export function resetAskedToSignIn(): void {
  asked = false;
}

/** Told when a change on this page ended an alarm ("I'm OK today" ended a missed day's alert): the open alerts are read again. */
const ended = new Set<() => void>();

/** Says an alarm was ended here. */
export function announceAlarmEnded(): void {
  for (const listener of ended) listener();
}

/** Calls `listener` when an alarm was ended here; returns the unsubscribe. */
export function onAlarmEnded(listener: () => void): () => void {
  ended.add(listener);
  return () => ended.delete(listener);
}

/** Told when the owner signed in on this page, from whichever sign-in form: the page reads its data again with the key. */
const signedIn = new Set<() => void>();

/** Says this page now holds the owner's key. */
export function announceOwnerSignedIn(): void {
  for (const listener of signedIn) listener();
}

/** Calls `listener` when the owner signs in on this page; returns the unsubscribe. */
export function onOwnerSignedIn(listener: () => void): () => void {
  signedIn.add(listener);
  return () => signedIn.delete(listener);
}
