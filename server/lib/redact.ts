/**
 * A URL safe to log: the query string is dropped and every path segment that looks
 * like a secret (alert tokens, verification keys, reset tokens, ids) is masked.
 */
export function redactUrl(url: string): string {
  const pathname = url.split('?')[0] ?? '';
  return pathname
    .split('/')
    .map((segment) => (/^[A-Za-z0-9_.~%-]{16,}$/.test(segment) ? '…' : segment))
    .join('/');
}
