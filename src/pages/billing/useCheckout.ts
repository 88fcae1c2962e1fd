import { useState } from 'react';
import { failureOf } from '../../api/client';
import { startCheckout } from '../../api/endpoints';
import { type Message, mapApiError, messageForCode } from '../../api/errors';
import type { Plan } from '../../api/types';
import { redirectTarget } from '../../lib/navigation';

/**
 * What a failed billing call says: the app's words for a known code (in the person's language),
 * no network or a server error as such, else the answer's `error` text, else `fallbackKey`.
 */
export async function checkoutError(failure: unknown, fallbackKey: string): Promise<Message> {
  const { status, data } = await failureOf(failure);
  const coded = messageForCode(data);
  if (coded) return coded;
  if (status === 0 || status === 429) return mapApiError(status, data).message ?? { key: fallbackKey };
  const text = typeof data === 'object' && data !== null ? (data as { error?: unknown }).error : undefined;
  return typeof text === 'string' && text ? { text } : { key: fallbackKey };
}

/**
 * Starts a checkout: a loading state, then the browser goes to the returned url; errors show the
 * answer's `error` or `fallbackKey`, an answer without a usable url the provider's error.
 */
export function useCheckout(fallbackKey: string) {
  const [pending, setPending] = useState<Plan | null>(null);
  const [error, setError] = useState<Message | null>(null);

  async function checkout(plan: Plan) {
    setPending(plan);
    setError(null);
    try {
      const target = redirectTarget(await startCheckout(plan));
      if (!target) {
        setError({ key: 'billing.provider_error' });
        setPending(null);
        return;
      }
      window.location.assign(target);
    } catch (failure) {
      setError(await checkoutError(failure, fallbackKey));
      setPending(null);
    }
  }

  return { checkout, pending, error, setError };
}
