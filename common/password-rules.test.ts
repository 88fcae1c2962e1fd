import { describe, expect, it } from 'vitest';
import {
  isCommonPassword,
  PASSWORD_ERRORS,
  passwordAcceptable,
  passwordChecks,
  passwordProblems,
  SPEC_COMMON_PASSWORDS,
} from './password-rules.js';

describe('passwordChecks', () => {
  it('passes a sturdy password on every line', () => {
    const checks = passwordChecks('Sturdy-Pass-42');
    expect(checks).toEqual({ minLength: true, hasDigit: true, notCommon: true, notAllDigits: true });
    expect(passwordAcceptable(checks)).toBe(true);
  });

  it('needs 8 characters, counting an emoji once', () => {
    expect(passwordChecks('abc1234').minLength).toBe(false);
    expect(passwordChecks('abcd1234').minLength).toBe(true);
    expect(passwordChecks('🔥🔥🔥🔥🔥🔥🔥1').minLength).toBe(true);
    expect(passwordChecks('🔥🔥🔥1').minLength).toBe(false);
  });

  it('needs a digit', () => {
    expect(passwordChecks('no-digits-here').hasDigit).toBe(false);
    expect(passwordChecks('one-digit-9').hasDigit).toBe(true);
  });

  it('refuses every password of the spec list, whatever its case or surrounding spaces', () => {
    for (const common of SPEC_COMMON_PASSWORDS) {
      expect(passwordChecks(common).notCommon).toBe(false);
      expect(passwordChecks(` ${common.toUpperCase()} `).notCommon).toBe(false);
    }
  });

  it('refuses six or more repeats of one digit anywhere, but not five', () => {
    expect(isCommonPassword('999999')).toBe(true);
    expect(isCommonPassword('abc7777777x')).toBe(true);
    expect(isCommonPassword('abc77777x')).toBe(false);
    expect(isCommonPassword('123123123')).toBe(false);
  });

  it('uses a larger list when one is given', () => {
    const list = new Set(['dragon2024']);
    expect(isCommonPassword('Dragon2024')).toBe(false);
    expect(isCommonPassword('Dragon2024', list)).toBe(true);
    expect(passwordChecks('Dragon2024', list).notCommon).toBe(false);
  });

  it('flags passwords made only of digits', () => {
    expect(passwordChecks('20261122').notAllDigits).toBe(false);
    expect(passwordChecks('2026-11-22').notAllDigits).toBe(true);
  });
});

describe('passwordProblems', () => {
  it('returns nothing for an acceptable password', () => {
    expect(passwordProblems('Sturdy-Pass-42')).toEqual([]);
  });

  it('returns every problem at once, in a stable order, each with its server text', () => {
    expect(passwordProblems('1234')).toEqual(['tooShort', 'entirelyNumeric']);
    expect(passwordProblems('12345678')).toEqual(['tooCommon', 'entirelyNumeric']);
    expect(passwordProblems('admin')).toEqual(['tooShort', 'tooCommon', 'noDigit']);
    expect(PASSWORD_ERRORS.tooShort).toBe('This password is too short. It must contain at least 8 characters.');
    expect(PASSWORD_ERRORS.entirelyNumeric).toBe('This password is entirely numeric.');
  });

  it('checks the given common list', () => {
    expect(passwordProblems('letmein1', { commonList: new Set(['letmein1']) })).toEqual(['tooCommon']);
  });

  it('asks for a digit when none is present', () => {
    expect(passwordProblems('long-enough-words')).toEqual(['noDigit']);
  });
});
