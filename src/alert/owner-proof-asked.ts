/**
 * What one part of the emergency page tells the others: a change only the owner may make was
 * refused, an alarm was ended here, the owner signed in here.
 */

/** Listeners told each time `announce` is called; `on` returns the unsubscribe. */
function signal() {
  const listeners = new Set<() => void>();
  return {
    announce(): void {
      for (const listener of listeners) listener();
    },
    on(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/**
 * Whether a change only the owner may make ("I'm safe", a position on the owner's alert) was
 * refused on this page for want of the owner's proof: the page then offers its sign-in, even
 * where a key is kept (it may have been removed or be another account's).
 */
let asked = false;
const askedSignal = signal();

/** Says a change was refused with 403 `owner_proof_required`. */
export function askOwnerToSignIn(): void {
  if (asked) return;
  asked = true;
  askedSignal.announce();
}

/** True once a change was refused for want of the owner's proof. */
export const ownerAskedToSignIn = () => asked;

/** Calls `listener` when the owner is asked to sign in; returns the unsubscribe. */
export const onAskedToSignIn = askedSignal.on;

/** Forgets the question (tests). */
export function resetAskedToSignIn(): void {
  asked = false;
}

/** Told when a change on this page ended an alarm ("I'm OK today" ended a missed day's alert): the open alerts are read again. */
const ended = signal();

/** Says an alarm was ended here. */
export const announceAlarmEnded = ended.announce;

/** Calls `listener` when an alarm was ended here; returns the unsubscribe. */
export const onAlarmEnded = ended.on;

/** Told when the owner signed in on this page, from whichever sign-in form: the page reads its data again with the key. */
const signedIn = signal();

/** Says this page now holds the owner's key. */
export const announceOwnerSignedIn = signedIn.announce;

/** Calls `listener` when the owner signs in on this page; returns the unsubscribe. */
export const onOwnerSignedIn = signedIn.on;
