import { describe, expect, it } from 'vitest';
import { remembered } from './remembered.js';

describe('remembered', () => {
  it('computes once per argument, and forgets all once full so it never grows past its bound', () => {
    const calls: string[] = [];
    const upper = remembered(2, (key) => {
      calls.push(key);
      return key.toUpperCase();
    });
    expect([upper('a'), upper('a'), upper('b'), upper('a')]).toEqual(['A', 'A', 'B', 'A']);
    expect(calls).toEqual(['a', 'b']);
    // A third argument finds it full: all are forgotten and computed again when asked.
    expect(upper('c')).toBe('C');
    expect(upper('a')).toBe('A');
    expect(calls).toEqual(['a', 'b', 'c', 'a']);
  });

  it('keeps an answer that is null', () => {
    let calls = 0;
    const nothing = remembered(10, () => {
      calls += 1;
      return null;
    });
    expect([nothing('x'), nothing('x')]).toEqual([null, null]);
    expect(calls).toBe(1);
  });
});
