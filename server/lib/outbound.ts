import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

// Addresses an outbound request from the server must never reach when the URL came from a
// client (a push endpoint): this machine, its private networks, link-local and the like.
const blocked = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  blocked.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 127],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, bits, 'ipv6');
}

/** Whether `address` (IPv4 or IPv6, an IPv4-mapped one too) is private, loopback, link-local or otherwise not public. */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return blocked.check(mapped, 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The problem with a client-given URL the server will call, or null: `https:` only and no
 * private host given as an address or as `localhost` (with `allowPrivate`, for tests on
 * loopback, private hosts pass). Names are checked again when they resolve (`publicLookup`),
 * so a name pointing inside is stopped too.
 */
export function outboundUrlProblem(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'Enter a valid URL.';
  }
  if (url.username || url.password) return 'The URL must not carry credentials.';
  if (url.protocol !== 'https:') return 'The URL must use https.';
  if (allowPrivate) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) && isPrivateAddress(host))) {
    return 'The URL must point to a public address.';
  }
  return null;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A DNS lookup for outbound agents that fails for names resolving to a private address, at
 * the moment of the connection (no window between a check and the request).
 */
export function publicLookup(hostname: string, options: object, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const list = addresses as LookupAddress[];
    const inside = list.find((entry) => isPrivateAddress(entry.address));
    if (inside || list.length === 0) {
      const refused = Object.assign(new Error(`${hostname} resolves to a private address`), { code: 'EPRIVATE' });
      return callback(refused, []);
    }
    if ((options as { all?: boolean }).all) return callback(null, list);
    const first = list[0] as LookupAddress;
    return callback(null, first.address, first.family);
  });
}
