import { describe, expect, it } from 'vitest';
import { mapApiError, mapContactError, mapErrorData, messageForText } from '../../../src/api/errors';

/** The server's texts (DESIGN.md §3) and what the catalogue of SPEC §8 makes of them. */
const CATALOGUE: [string, string][] = [
  ['email_not_verified', 'errors.emailNotVerified'],
  ['A user with that username already exists.', 'errors.usernameExists'],
  ['A user is already registered with this e-mail address.', 'errors.emailExists'],
  ["The two password fields didn't match.", 'errors.passwordsDontMatch'],
  ['This password is too short. It must contain at least 8 characters.', 'errors.passwordTooShort'],
  ['This password is too common.', 'errors.passwordTooCommon'],
  ['This password is entirely numeric.', 'errors.passwordAllDigits'],
  ['This password must contain at least one digit.', 'errors.passwordNoDigit'],
  ['Enter a valid email address.', 'errors.invalidEmail'],
  ['You must accept the terms and privacy policy.', 'errors.termsRequired'],
  ['No active account found with the given credentials', 'errors.invalidCredentials'],
  ['Unable to log in with provided credentials.', 'errors.invalidCredentials'],
  ['Invalid credentials', 'errors.invalidCredentials'],
  ['Phone number must be in international format, e.g. +351912345678.', 'setup.invalid_phone_format'],
  ['Phone number must have at least 9 digits.', 'setup.phone_too_short'],
  ['Phone number must have at most 15 digits.', 'setup.phone_too_long'],
  ['This number is already in your contacts.', 'setup.phone_already_exists'],
  ['An active subscription is required to add contacts.', 'setup.premium_required_to_add'],
  ['Name is required.', 'setup.required_name'],
  ['Phone number is required.', 'setup.required_phone'],
  ['Invalid or expired token.', 'reset.invalid_link'],
  ['Invalid user.', 'reset.invalid_user'],
];

describe('error catalogue', () => {
  it.each(CATALOGUE)('maps %j to %s', (text, key) => {
    expect(messageForText(text)).toEqual({ key });
  });

  it('splits CONTACT_LIMIT_REACHED on : or :: into max and plan', () => {
    expect(messageForText('CONTACT_LIMIT_REACHED:3:basic')).toEqual({
      key: 'setup.contact_limit',
      params: { max: '3', plan: 'basic' },
    });
    expect(messageForText('CONTACT_LIMIT_REACHED::10::premium')).toEqual({
      key: 'setup.contact_limit',
      params: { max: '10', plan: 'premium' },
    });
  });

  it('names the field of a blank error, or uses the generic text', () => {
    expect(messageForText('This field may not be blank.', 'username')).toEqual({
      key: 'errors.fieldBlank',
      params: { field: 'username' },
    });
    expect(messageForText('This field may not be blank.')).toEqual({ key: 'errors.fieldBlankGeneric' });
  });

  it('shows any other text as it is', () => {
    expect(messageForText('Something the server says.')).toEqual({ text: 'Something the server says.' });
  });

  it('puts field errors under their fields and non_field_errors as the main message, ignoring the code', () => {
    const mapped = mapErrorData({
      username: ['A user with that username already exists.'],
      password1: ['This password is too common.'],
      non_field_errors: ['Something about the whole form.'],
      code: 'invalid',
    });
    expect(mapped.message).toEqual({ text: 'Something about the whole form.' });
    expect(mapped.fields).toEqual({
      username: { key: 'errors.usernameExists' },
      password1: { key: 'errors.passwordTooCommon' },
    });
  });

  it('uses detail and error as the main message', () => {
    expect(mapErrorData({ detail: 'email_not_verified', code: 'email_not_verified' }).message).toEqual({
      key: 'errors.emailNotVerified',
    });
    expect(mapErrorData({ error: 'Card declined.' }).message).toEqual({ text: 'Card declined.' });
  });

  it('gives errors.unknown for non-string data', () => {
    for (const data of [null, undefined, 42, [1, 2], { detail: 42 }, {}]) {
      expect(mapErrorData(data).message).toEqual({ key: 'errors.unknown' });
    }
  });

  it('has its own messages for no answer, 429 and server errors', () => {
    expect(mapApiError(0, undefined).message).toEqual({ key: 'errors.network' });
    expect(mapApiError(429, { detail: 'Too many.' }).message).toEqual({ key: 'errors.rateLimited' });
    expect(mapApiError(500, { detail: 'A server error occurred.' }).message).toEqual({ key: 'errors.server' });
  });

  describe('contact form', () => {
    it('says 403 means logged out and 5xx means try later', () => {
      expect(mapContactError(403, { detail: 'x' }).message).toEqual({ key: 'setup.must_be_logged_in' });
      expect(mapContactError(502, undefined).message).toEqual({ key: 'setup.error_server' });
    });

    it('maps the limit, the 402 and field errors', () => {
      expect(mapContactError(400, { detail: 'CONTACT_LIMIT_REACHED:3:basic', code: 'contact_limit' }).message).toEqual({
        key: 'setup.contact_limit',
        params: { max: '3', plan: 'basic' },
      });
      expect(
        mapContactError(402, { detail: 'An active subscription is required to add contacts.', code: 'x' }).message,
      ).toEqual({ key: 'setup.premium_required_to_add' });
      const duplicate = mapContactError(400, {
        phone_number: ['This number is already in your contacts.'],
        code: 'dup',
      });
      expect(duplicate.fields.phone_number).toEqual({ key: 'setup.phone_already_exists' });
    });

    it('falls back to setup.error_add for an unmatched detail, but shows non_field_errors as they are', () => {
      expect(mapContactError(400, { detail: 'Weird.' }).message).toEqual({ key: 'setup.error_add' });
      expect(mapContactError(400, 'nonsense').message).toEqual({ key: 'setup.error_add' });
      expect(mapContactError(400, { non_field_errors: ['Body must be an object.'] }).message).toEqual({
        text: 'Body must be an object.',
      });
    });
  });
});
