/** An absolute-form request target's scheme and authority (`GET http://host/api/… HTTP/1.1`). */
const ABSOLUTE_FORM = /^https?:\/\/[^/?#]*/i;
/** RFC 3986 §2.3: these characters mean the same percent-encoded or not. */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * One spelling per request target, before routing, limits and headers see it: an
 * absolute-form target becomes its path, percent-encoded unreserved characters are
 * decoded (`%70ublic` is `public`, `%2e%2e` is `..`), and dot segments are removed
 * (RFC 3986 §5.2.4). Every other escape stays as sent, so `%2F` inside a segment never
 * becomes a path separator and the router still hands it to the parameter as `/`. The
 * query is kept as sent; `*` and other non-path targets are left alone.
 */
export function normaliseTarget(target: string): string {
  // Most targets are already in their one spelling.
  if (target.startsWith('/') && !target.includes('%') && !target.includes('/.')) return target;
  let rest = target;
  const absolute = ABSOLUTE_FORM.exec(rest);
  if (absolute) {
    rest = rest.slice(absolute[0].length);
    if (!rest.startsWith('/')) rest = `/${rest}`;
  }
  if (!rest.startsWith('/')) return target;
  const queryAt = rest.indexOf('?');
  const path = queryAt === -1 ? rest : rest.slice(0, queryAt);
  const query = queryAt === -1 ? '' : rest.slice(queryAt);
  return removeDotSegments(decodeUnreserved(path)) + query;
}

function decodeUnreserved(path: string): string {
  return path.replace(/%([0-9A-Fa-f]{2})/g, (escaped, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : escaped;
  });
}

/** RFC 3986 §5.2.4 on an absolute path: `/a/./b/../c` is `/a/c`; a final `.` or `..` leaves a trailing slash. */
function removeDotSegments(path: string): string {
  const segments = path.split('/').slice(1);
  const kept: string[] = [];
  segments.forEach((segment, index) => {
    const dot = segment === '.' || segment === '..';
    if (segment === '..') kept.pop();
    if (!dot) kept.push(segment);
    else if (index === segments.length - 1) kept.push('');
  });
  return `/${kept.join('/')}`;
}
