import { useState } from 'react';
import { failureOf } from '../../api/client';
import { startCheckout } from '../../api/endpoints';
import type { Message } from '../../api/errors';
import type { Plan } from '../../api/types';

/** Starts a checkout: a loading state, then the browser goes to the returned url; errors show the answer's `error` or `fallbackKey`. */
export function useCheckout(fallbackKey: string) {
  const [pending, setPending] = useState<Plan | null>(null);
  const [error, setError] = useState<Message | null>(null);

  async function checkout(plan: Plan) {
    setPending(plan);
    setError(null);
    try {
      const { url } = await startCheckout(plan);
      window.location.assign(url);
    } catch (failure) {
      const { data } = await failureOf(failure);
      const text = typeof data === 'object' && data !== null ? (data as { error?: unknown }).error : undefined;
      setError(typeof text === 'string' && text ? { text } : { key: fallbackKey });
      setPending(null);
    }
  }

  return { checkout, pending, error };
}
