// What every call to a provider (SMS, voice) shares: the adapters mark a refusal that retrying
// cannot fix `permanent` and a call that came back without the provider's answer `unanswered`;
// the callers bound each call's wait and keep contacts' numbers out of what they log.

/** A provider error that retrying cannot fix (e.g. an invalid number). */
export const isPermanent = (error: unknown) => (error as { permanent?: unknown } | null)?.permanent === true;

/** A send (or lookup) that got no answer: the provider may have acted on it all the same. */
export const isUnanswered = (error: unknown) => (error as { unanswered?: unknown } | null)?.unanswered === true;

/** `promise`, or a rejection marked unanswered once `ms` have passed without its answer. */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error(`provider did not answer within ${ms} ms`), { unanswered: true })),
      ms,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A provider's error as logs may show it: providers quote the number, and logs never hold contacts' numbers. */
export const loggable = (error: unknown) =>
  (error instanceof Error ? error.message : String(error)).replace(/\+?\d[\d ()-]{5,}\d/g, '…');

/**
 * What the provider holds of an earlier attempt that may have reached it (one it never answered,
 * a run that died or lost its job mid-call), asked before the SMS or call is tried again:
 * undefined when it holds nothing, or when it cannot tell within `timeoutMs` or at all, and then
 * the caller tries again: a contact reached twice is better than one never reached.
 * `cannotTell` hears why, fit for logs.
 */
export async function heldAfterAttempt<T>(
  lookup: () => Promise<T | undefined>,
  timeoutMs: number,
  cannotTell?: (reason: string) => void,
): Promise<T | undefined> {
  try {
    return await withTimeout(lookup(), timeoutMs);
  } catch (error) {
    cannotTell?.(loggable(error));
    return undefined;
  }
}
