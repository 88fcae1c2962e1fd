import { isIP } from 'node:net';
import { getHeapStatistics } from 'node:v8';
import { z } from 'zod';

// The kinds of value the settings take (server/config.ts), each parsed with a clear message.

export const flag = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', ''], { message: 'must be 1 or 0 (true or false)' })
  .transform((v) => v === '1' || v === 'true' || v === 'yes');
export const positiveInt = (name: string) =>
  z.coerce
    .number({ message: `must be a whole number` })
    .int(`${name} must be a whole number`)
    .min(1, 'must be at least 1');
/** A load threshold for shedding requests (server/plugins/overload.ts); 0 turns it off. */
export const threshold = z.coerce
  .number({ message: 'must be a whole number (0 turns it off)' })
  .int('must be a whole number (0 turns it off)')
  .min(0, 'must be a whole number (0 turns it off)');
/** A count that may be 0 (what 0 means is the setting's to say). */
export const wholeNumber = z.coerce
  .number({ message: 'must be a whole number' })
  .int('must be a whole number')
  .min(0, 'must be a whole number (0 or more)');
/** The V8 heap this process may use (MB): the heap thresholds' defaults are shares of it. */
export const HEAP_LIMIT_MB = Math.floor(getHeapStatistics().heap_size_limit / 2 ** 20);
/** An amount in euros, at most to the cent. */
export const euros = z.coerce
  .number({ message: 'must be an amount in euros, e.g. 3 or 0.08' })
  .min(0, 'must be an amount in euros, e.g. 3 or 0.08')
  .refine(
    (v) => Math.abs(v * 100 - Math.round(v * 100)) < 1e-6,
    'must be an amount in euros to the cent, e.g. 3 or 0.08',
  );
/** How a URL setting may carry a password: `hint` ends the message when its password breaks it. */
export interface Credentials {
  hint: string;
}

/**
 * What is wrong with a URL setting, or null: it names the cause (a scheme not accepted, a user
 * name or password holding a character that ends it early, a host or port that cannot be read)
 * and never repeats the value, which may hold a password.
 */
export function urlProblem(value: string, protocols: string[], credentials?: Credentials): string | null {
  const wanted = protocols.map((p) => `${p}//`).join(' or ');
  const scheme = /^([a-z][a-z0-9+.-]*:)\/\//i.exec(value)?.[1]?.toLowerCase();
  if (!scheme) return `must be a URL starting with ${wanted}`;
  if (!protocols.includes(scheme)) return `must be a URL starting with ${wanted}, not ${scheme}//`;
  const rest = value.slice(scheme.length + 2);
  // A password holding "/", "?" or "#" cuts the address there: the rest becomes a path.
  const userinfo = rest.includes('@') ? rest.slice(0, rest.lastIndexOf('@')) : '';
  if (credentials && /[/?#]/.test(userinfo)) {
    return `has a user name or password holding "/", "?" or "#", which ends it early: percent-encode it ("/" as %2F, "?" as %3F, "#" as %23)${credentials.hint}`;
  }
  try {
    new URL(value);
    return null;
  } catch {
    return 'is not a URL that can be read: check its host name and port';
  }
}
/** A URL setting with one of `protocols`; `credentials` for one that may carry a password. */
export const url = (protocols: string[], credentials?: Credentials) =>
  z.string().superRefine((value, ctx) => {
    const problem = urlProblem(value, protocols, credentials);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** proxy-addr's names for address ranges, accepted in a TRUST_PROXY list. */
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const isProxyAddress = (entry: string) => {
  if (RANGE_NAMES.has(entry) || isIP(entry)) return true;
  const [address, bits, extra] = entry.split('/');
  const family = isIP(address ?? '');
  return extra === undefined && family > 0 && /^\d{1,3}$/.test(bits ?? '') && Number(bits) <= (family === 4 ? 32 : 128);
};

/**
 * Which reverse proxies to believe about the client's address: off (0), a number of proxy hops
 * in front of the server (1 = one proxy; `true` means 1), or a comma-separated list of proxy
 * addresses or CIDR ranges. Only entries the trusted proxies added count, so a client-forged
 * left-most X-Forwarded-For entry never becomes the client address.
 */
export const trustProxy = z.string().transform((raw, ctx): false | number | string[] => {
  const value = raw.trim().toLowerCase();
  if (['0', 'false', 'no'].includes(value)) return false;
  if (['true', 'yes'].includes(value)) return 1;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops <= 20) return hops;
    ctx.addIssue({ code: 'custom', message: 'must be a number of proxy hops (1-20)' });
    return z.NEVER;
  }
  const entries = value.split(',').map((entry) => entry.trim());
  if (entries.every(isProxyAddress)) return entries;
  ctx.addIssue({
    code: 'custom',
    message: 'must be 0, a number of proxy hops, or a comma-separated list of proxy addresses or CIDR ranges',
  });
  return z.NEVER;
});
