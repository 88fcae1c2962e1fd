import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../common/api/errors';
import { type Message, mapApiError, mapContactError, mapErrorData, messageForCode } from '../../../src/api/errors';
import en from '../../../src/i18n/locales/en';
import pt from '../../../src/i18n/locales/pt';

/** Codes and what the catalogue of SPEC §8 makes of them, whatever the English text says. */
const CATALOGUE: [code: string, key: string][] = [
  ['email_not_verified', 'errors.emailNotVerified'],
  ['no_active_account', 'errors.invalidCredentials'],
  ['username_exists', 'errors.usernameExists'],
  ['invalid_username', 'errors.invalidUsername'],
  ['password_mismatch', 'errors.passwordsDontMatch'],
  ['password_too_short', 'errors.passwordTooShort'],
  ['password_too_common', 'errors.passwordTooCommon'],
  ['password_entirely_numeric', 'errors.passwordAllDigits'],
  ['password_no_digit', 'errors.passwordNoDigit'],
  ['invalid_email', 'errors.invalidEmail'],
  ['terms_required', 'errors.termsRequired'],
  ['required', 'errors.fieldRequired'],
  ['max_length', 'errors.tooLong'],
  ['token_not_valid', 'errors.sessionExpired'],
  ['invalid_token', 'reset.invalid_link'],
  ['invalid_user', 'reset.invalid_user'],
  ['invalid_display_name', 'setup.invalid_display_name'],
  ['display_name_link', 'setup.display_name_link'],
  ['invalid_time_zone', 'setup.invalid_time_zone'],
  ['invalid_pin', 'checkins.invalid_pin'],
  ['same_pin', 'checkins.same_pin'],
  ['name_required', 'setup.required_name'],
  ['invalid_name', 'setup.invalid_name'],
  ['phone_required', 'setup.required_phone'],
  ['phone_format', 'setup.invalid_phone_format'],
  ['phone_too_short', 'setup.phone_too_short'],
  ['phone_too_long', 'setup.phone_too_long'],
  ['duplicate_phone', 'setup.phone_already_exists'],
  ['invalid_relationship', 'setup.invalid_relationship'],
  ['subscription_required', 'setup.premium_required_to_add'],
  ['already_subscribed', 'billing.already_subscribed'],
  ['payment_provider_error', 'billing.provider_error'],
  ['throttled', 'errors.rateLimited'],
];

/** Whether a dotted key has a text in a locale. */
function has(messages: object, key: string): boolean {
  let node: unknown = messages;
  for (const part of key.split('.')) node = (node as Record<string, unknown> | undefined)?.[part];
  return typeof node === 'string';
}

describe('error catalogue', () => {
  it.each(CATALOGUE)('says %s as %s, not the English text', (code, key) => {
    expect(mapErrorData({ detail: 'Some other English wording.', code }).message).toEqual({ key });
  });

  it('has words in both languages for every code it says, and the server’s text for the rest', () => {
    for (const code of ERROR_CODES) {
      const body = { detail: 'Server text.', code, max: 3, plan: 'basic' };
      const { message } = mapErrorData(body);
      expect(message, code).not.toBeNull();
      if (message && 'key' in message) {
        expect(has(pt, message.key) && has(en, message.key), `${code} → ${message.key}`).toBe(true);
      } else {
        expect(message).toEqual({ text: 'Server text.' });
      }
    }
  });

  it('maps phone_too_short by its code although the text changed', () => {
    const mapped = mapErrorData({
      phone_number: ['Phone numbers need 9 digits or more.'],
      code: 'phone_too_short',
      codes: { phone_number: 'phone_too_short' },
    });
    expect(mapped).toEqual({ message: null, fields: { phone_number: { key: 'setup.phone_too_short' } } });
  });

  it('maps each field by its own code in `codes`, not the body’s first code', () => {
    const mapped = mapErrorData({
      username: ['Taken.'],
      password1: ['Too easy.'],
      password2: ['Not the same.'],
      email: ['Something new the server says.'],
      code: 'username_exists',
      codes: {
        username: 'username_exists',
        password1: 'password_too_common',
        password2: 'password_mismatch',
        email: 'invalid',
      },
    });
    expect(mapped.message).toBeNull();
    expect(mapped.fields).toEqual({
      username: { key: 'errors.usernameExists' },
      password1: { key: 'errors.passwordTooCommon' },
      password2: { key: 'errors.passwordsDontMatch' },
      email: { text: 'Something new the server says.' },
    });
  });

  it('names the field of a blank error, or uses the generic text for the main message', () => {
    expect(mapErrorData({ username: ['x'], code: 'blank', codes: { username: 'blank' } }).fields).toEqual({
      username: { key: 'errors.fieldBlank', params: { field: 'username' } },
    });
    expect(mapErrorData({ detail: 'x', code: 'blank' }).message).toEqual({ key: 'errors.fieldBlankGeneric' });
  });

  it('takes the contact limit from the max and plan fields, not from the detail text', () => {
    const body = { detail: 'CONTACT_LIMIT_REACHED:1:other', code: 'contact_limit_reached', max: 3, plan: 'basic' };
    expect(mapErrorData(body)).toEqual({
      message: { key: 'setup.contact_limit', params: { max: 3, plan: 'basic' } },
      fields: {},
    });
  });

  it('shows the server’s text for the contact limit when max or plan is missing', () => {
    expect(mapErrorData({ detail: 'CONTACT_LIMIT_REACHED:3:basic', code: 'contact_limit_reached' }).message).toEqual({
      text: 'CONTACT_LIMIT_REACHED:3:basic',
    });
  });

  it('keeps a code’s parameters out of the fields', () => {
    const mapped = mapErrorData({ detail: 'Slow down.', code: 'throttled', retry_after: 30 });
    expect(mapped).toEqual({ message: { key: 'errors.rateLimited' }, fields: {} });
  });

  it('shows the server’s text for an unknown code, a code without words, or no code', () => {
    expect(mapErrorData({ detail: 'Brand new problem.', code: 'brand_new' }).message).toEqual({
      text: 'Brand new problem.',
    });
    expect(mapErrorData({ detail: 'No contacts.', code: 'no_contacts' }).message).toEqual({ text: 'No contacts.' });
    expect(mapErrorData({ detail: 'This number is already in your contacts.' }).message).toEqual({
      text: 'This number is already in your contacts.',
    });
  });

  it('uses non_field_errors, detail and error as the main message', () => {
    const mapped = mapErrorData({
      username: ['A user with that username already exists.'],
      non_field_errors: ['Something about the whole form.'],
      code: 'username_exists',
      codes: { username: 'username_exists', non_field_errors: 'invalid' },
    });
    expect(mapped.message).toEqual({ text: 'Something about the whole form.' });
    expect(mapped.fields).toEqual({ username: { key: 'errors.usernameExists' } });
    expect(mapErrorData({ error: 'Card declined.', code: 'invalid' }).message).toEqual({ text: 'Card declined.' });
    expect(mapErrorData({ error: 'English.', code: 'same_plan' }).message).toEqual({ key: 'billing.same_plan' });
  });

  it('says the code of a body with neither detail nor fields', () => {
    expect(mapErrorData({ code: 'email_not_verified' }).message).toEqual({ key: 'errors.emailNotVerified' });
  });

  it('gives errors.unknown for non-string data', () => {
    for (const data of [null, undefined, 42, [1, 2], { detail: 42 }, {}, '']) {
      expect(mapErrorData(data).message).toEqual({ key: 'errors.unknown' });
    }
  });

  it('answers messageForCode only for codes the app has words for', () => {
    expect(messageForCode({ error: 'x', code: 'no_subscription' })).toEqual({ key: 'billing.no_subscription' });
    expect(messageForCode({ error: 'x', code: 'invalid' })).toBeNull();
    expect(messageForCode('no_subscription')).toBeNull();
  });

  it('has its own messages for no answer, 429 and server errors', () => {
    expect(mapApiError(0, undefined).message).toEqual({ key: 'errors.network' });
    expect(mapApiError(429, { detail: 'Too many.', code: 'throttled', retry_after: 9 }).message).toEqual({
      key: 'errors.rateLimited',
    });
    expect(mapApiError(500, { detail: 'A server error occurred.', code: 'server_error' }).message).toEqual({
      key: 'errors.server',
    });
  });

  describe('contact form', () => {
    it('says 403 means logged out and 5xx means try later', () => {
      expect(mapContactError(403, { detail: 'x', code: 'forbidden' }).message).toEqual({
        key: 'setup.must_be_logged_in',
      });
      expect(mapContactError(502, undefined).message).toEqual({ key: 'setup.error_server' });
    });

    it('maps the limit, the 402 and field errors by code', () => {
      expect(
        mapContactError(400, { detail: 'Limit.', code: 'contact_limit_reached', max: 10, plan: 'premium' }).message,
      ).toEqual({ key: 'setup.contact_limit', params: { max: 10, plan: 'premium' } });
      expect(mapContactError(402, { detail: 'Pay first.', code: 'subscription_required' }).message).toEqual({
        key: 'setup.premium_required_to_add',
      });
      const fields: Record<string, Message> = mapContactError(400, {
        name: ['Name is required.'],
        phone_number: ['Duplicate.'],
        code: 'name_required',
        codes: { name: 'name_required', phone_number: 'duplicate_phone' },
      }).fields;
      expect(fields).toEqual({
        name: { key: 'setup.required_name' },
        phone_number: { key: 'setup.phone_already_exists' },
      });
    });

    it('falls back to setup.error_add for a detail without words, but shows non_field_errors as they are', () => {
      expect(mapContactError(400, { detail: 'Weird.', code: 'invalid' }).message).toEqual({ key: 'setup.error_add' });
      expect(mapContactError(400, 'nonsense').message).toEqual({ key: 'setup.error_add' });
      expect(
        mapContactError(400, { non_field_errors: ['Body must be an object.'], code: 'not_an_object' }).message,
      ).toEqual({ text: 'Body must be an object.' });
    });
  });
});
