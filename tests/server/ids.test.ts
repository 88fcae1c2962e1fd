import { validate, version } from 'uuid';
import { describe, expect, it, vi } from 'vitest';
import { newId, orderedId, randomToken } from '../../server/lib/ids.js';

describe('randomToken', () => {
  it('is a fresh token of the size asked, every time', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 3000; i++) {
      const size = [8, 16, 24][i % 3] as number;
      const token = randomToken(size);
      expect(Buffer.from(token, 'base64url')).toHaveLength(size);
      seen.add(token);
    }
    expect(seen.size).toBe(3000);
    expect(Buffer.from(randomToken(5000), 'base64url')).toHaveLength(5000);
  });

  it('draws bytes with no visible bias: every value of a byte turns up', () => {
    const counts = new Array(256).fill(0);
    for (let i = 0; i < 400; i++) for (const byte of Buffer.from(randomToken(24), 'base64url')) counts[byte] += 1;
    // 9,600 bytes: about 37 of each value, so none is missing unless the bytes repeat.
    expect(counts.filter((n) => n === 0)).toHaveLength(0);
  });
});

describe('orderedId', () => {
  it('is a UUIDv7 of its millisecond: ids made later sort after, each one unique', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const start = Date.UTC(2026, 10, 28, 12);
      const made: string[][] = [];
      // Many ids in each of five milliseconds, out of order across them.
      for (const ms of [0, 1, 2, 3, 4]) {
        vi.setSystemTime(start + ms);
        made.push(Array.from({ length: 500 }, orderedId));
      }
      const all = made.flat();
      expect(all.every((id) => validate(id) && version(id) === 7)).toBe(true);
      expect(new Set(all).size).toBe(all.length);
      // Each millisecond's ids sort before the next one's, whatever their random part.
      for (let ms = 1; ms < made.length; ms += 1) {
        const before = made[ms - 1]?.toSorted().at(-1) as string;
        const after = made[ms]?.toSorted()[0] as string;
        expect(before < after).toBe(true);
      }
      expect(all.toSorted().slice(0, 500).toSorted()).toEqual(made[0]?.toSorted());
      // The leading 48 bits are the time in milliseconds.
      expect(Number.parseInt(made[2]?.[0]?.replace('-', '').slice(0, 12) as string, 16)).toBe(start + 2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('leaves newId random through and through, for rows whose id is handed out', () => {
    const ids = Array.from({ length: 50 }, newId);
    expect(ids.every((id) => version(id) === 4)).toBe(true);
  });
});
