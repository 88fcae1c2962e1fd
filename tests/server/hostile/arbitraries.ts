import fc from 'fast-check';

/** Strings that have broken real systems: injection, control and bidi characters, lone surrogates, odd case folding. */
export const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'abc\u0000def',
  '\uD800',
  '\uDFFF',
  'a\uD83D',
  '\u202Eevil',
  '\u200B\u200C\u200D\uFEFF',
  "'; drop table users; --",
  '" or 1=1 --',
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '../../../../etc/passwd',
  '%00',
  '%2e%2e%2f',
  '$' + '{7*7}',
  '{{7*7}}',
  '__proto__',
  'constructor',
  'İstanbul',
  'ß',
  'ﬀ',
  'Ω',
  'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǫ̗',
  '🚨🆘👩‍👩‍👧‍👦',
  '🚨'.repeat(300),
  'a'.repeat(5000),
  '+351912345678',
  '+3519123456789012345678',
  '00351912345678',
  '1e309',
  '-0',
  'NaN',
  'null',
  'true',
  '[]',
  '{}',
];

/** One hostile string: a known nasty one, random unicode, or random code units including lone surrogates. */
export const hostileString = fc.oneof(
  fc.constantFrom(...NASTY_STRINGS),
  fc.string({ unit: 'grapheme', maxLength: 80 }),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.string({ maxLength: 300 }),
);

/** Any JSON value at all, nested a little. */
export const anyJson = fc.jsonValue({ maxDepth: 3 });

/** A value for a known field: plausible, hostile, or of the wrong type. */
export function fieldValue(plausible: readonly unknown[]): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 3, arbitrary: plausible.length ? fc.constantFrom(...plausible) : hostileString },
    { weight: 3, arbitrary: hostileString },
    { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double({ noNaN: true }), fc.boolean(), fc.constant(null)) },
    { weight: 1, arbitrary: anyJson },
  );
}

/** An object with the endpoint's fields (each maybe missing), plus stray keys now and then. */
export function shapedBody(fields: Record<string, readonly unknown[]>): fc.Arbitrary<unknown> {
  const record = fc.record(
    Object.fromEntries(Object.entries(fields).map(([name, plausible]) => [name, fieldValue(plausible)])),
    { requiredKeys: [] },
  );
  return fc
    .tuple(record, fc.dictionary(hostileString, anyJson, { maxKeys: 3 }))
    .map(([known, extra]) => ({ ...extra, ...known }));
}

export interface RawRequest {
  contentType: string | undefined;
  payload: string | undefined;
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json; charset=latin1',
  'application/vnd.api+json',
  'text/plain',
  'text/html',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=----x',
  'application/octet-stream',
  ';;;',
  '',
];

/** A request body: usually JSON of the given shape, sometimes malformed JSON or the wrong content type. */
export function hostileBody(shape: fc.Arbitrary<unknown>): fc.Arbitrary<RawRequest> {
  return fc.oneof(
    { weight: 6, arbitrary: shape.map((body) => ({ contentType: 'application/json', payload: JSON.stringify(body) })) },
    {
      weight: 1,
      arbitrary: anyJson.map((body) => ({ contentType: 'application/json', payload: JSON.stringify(body) })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom('{', '{"a":', '[1,', '"', '{"__proto__":{"x":1}}', 'nul', '\u0000', '{}}'),
          hostileString,
        )
        .map(([start, rest]) => ({ contentType: 'application/json', payload: start + rest })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom<string | undefined>(...CONTENT_TYPES, undefined), hostileString)
        .map(([contentType, payload]) => ({ contentType, payload })),
    },
    { weight: 1, arbitrary: fc.constant({ contentType: undefined, payload: undefined }) },
  );
}

/** Percent-encodes like a browser; a lone surrogate (which encodeURIComponent refuses) goes as raw bytes. */
function encodeSegment(value: string): string {
  try {
    return encodeURIComponent(value) || 'x';
  } catch {
    return '%ED%A0%80';
  }
}

/** Marks "use the real id of the test world" among the generated segments. */
export const REAL = Symbol('real');

/** A path segment: the real id now and then, otherwise something hostile, percent-encoded or raw. */
export const pathSegment: fc.Arbitrary<string | typeof REAL> = fc.oneof(
  { weight: 2, arbitrary: fc.constant(REAL) },
  { weight: 3, arbitrary: hostileString.map(encodeSegment) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '%',
      '%zz',
      '%00',
      '%C0%AE',
      '..',
      '.',
      '%2F',
      'a%2Fb',
      '%E2%80%AE',
      '%ED%A0%80',
      'x'.repeat(250),
    ),
  },
);

/** Headers an attacker controls: broken Authorization, odd languages, spoofed proxies, bad idempotency keys. */
export const hostileHeaders = fc.record(
  {
    'accept-language': fc.oneof(
      fc.constantFrom('en', 'pt-PT', 'en;q=0.1,pt;q=2', '*', 'zz-ZZ', ';;,', 'x'.repeat(2000)),
      hostileString.map(ascii),
    ),
    'x-forwarded-for': fc.constantFrom('1.2.3.4', 'not-an-ip', '::1, 127.0.0.1', ''),
    'x-forwarded-proto': fc.constantFrom('https', 'gopher', ''),
    'idempotency-key': fc.oneof(fc.uuid({ version: 4 }).map(String), hostileString.map(ascii)),
    'user-agent': hostileString.map(ascii),
  },
  { requiredKeys: [] },
);

/** Header values must be visible ASCII to be sent at all; keep the rest of the hostility. */
function ascii(value: string): string {
  return value.replace(/[^\x20-\x7e]/g, '?');
}
