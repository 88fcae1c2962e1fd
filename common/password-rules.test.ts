import { describe, expect, it } from 'vitest';
import {
  isCommonPassword,
  PASSWORD_ERRORS,
  passwordAcceptable,
  passwordChecks,
  passwordErrors,
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

describe('passwordErrors', () => {
  it('returns nothing for an acceptable password', () => {
    expect(passwordErrors('Sturdy-Pass-42')).toEqual([]);
  });

  it('returns the exact server texts, several at once', () => {
    expect(passwordErrors('1234')).toEqual([
      'This password is too short. It must contain at least 8 characters.',
      'This password is entirely numeric.',
    ]);
    expect(passwordErrors('12345678')).toEqual(['This password is too common.', 'This password is entirely numeric.']);
    expect(passwordErrors('admin')).toEqual([
      PASSWORD_ERRORS.tooShort,
      PASSWORD_ERRORS.tooCommon,
      PASSWORD_ERRORS.noDigit,
    ]);
  });

  it('checks the given common list', () => {
    expect(passwordErrors('letmein1', { commonList: new Set(['letmein1']) })).toEqual([PASSWORD_ERRORS.tooCommon]);
  });

  it('asks for a digit when none is present', () => {
    expect(passwordErrors('long-enough-words')).toEqual([PASSWORD_ERRORS.noDigit]);
  });
});
