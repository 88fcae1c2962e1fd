import { describe, expect, it } from 'vitest';
import { randomToken } from '../../server/lib/ids.js';

describe('randomToken', () => {
  it('hands out each random byte once, across refills of its pool, at every size asked', () => {
    const seen = new Set<string>();
    // Far more bytes than one pool holds: tokens drawn across many refills.
    for (let i = 0; i < 3000; i++) {
      const size = [8, 16, 24][i % 3] as number;
      const token = randomToken(size);
      expect(Buffer.from(token, 'base64url')).toHaveLength(size);
      seen.add(token);
    }
    expect(seen.size).toBe(3000);
    // Larger than the pool: still the size asked.
    expect(Buffer.from(randomToken(5000), 'base64url')).toHaveLength(5000);
  });

  it('draws bytes with no visible bias: every value of a byte turns up', () => {
    const counts = new Array(256).fill(0);
    for (let i = 0; i < 400; i++) for (const byte of Buffer.from(randomToken(24), 'base64url')) counts[byte] += 1;
    // 9,600 bytes: about 37 of each value, so none is missing unless the bytes repeat.
    expect(counts.filter((n) => n === 0)).toHaveLength(0);
  });
});
