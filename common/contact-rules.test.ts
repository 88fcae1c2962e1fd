import { describe, expect, it } from 'vitest';
import {
  CONTACT_MESSAGES,
  normaliseContactName,
  normalisePhone,
  parseContact,
  validateContact,
  validateContactName,
} from './contact-rules.js';

const FORMAT = 'Phone number must be in international format, e.g. +351912345678.';
const TOO_SHORT = 'Phone number must have at least 9 digits.';
const TOO_LONG = 'Phone number must have at most 15 digits.';
const CLEAN_E164 = /^\+[1-9]\d{8,14}$/;

describe('normalisePhone: real numbers', () => {
  // Public switchboards and typical mobile numbers, written the ways people write them.
  const table: [country: string, typed: string, e164: string][] = [
    ['Portugal mobile', '+351 912 345 678', '+351912345678'],
    ['Portugal mobile, no +', '351912345678', '+351912345678'],
    ['Portugal mobile, 00 prefix', '00351 96 123 4567', '+351961234567'],
    ['Portugal Lisbon landline', '+351 21 361 4600', '+351213614600'],
    ['Brazil São Paulo mobile', '+55 11 98765-4321', '+5511987654321'],
    ['Brazil Rio landline', '+55 (21) 2332-2000', '+552123322000'],
    ['UK mobile', '+44 7911 123456', '+447911123456'],
    ['UK London landline with trunk 0', '+44 (0)20 7930 4832', '+442079304832'],
    ['US Washington DC', '+1 (202) 456-1111', '+12024561111'],
    ['US New York, dots', '1.212.736.5000', '+12127365000'],
    ['Germany mobile', '+49 1512 3456789', '+4915123456789'],
    ['Germany Berlin landline', '+49 30 227 32020', '+493022732020'],
    ['Germany Munich city hall', '+49 89 233-00', '+498923300'],
    ['India mobile', '+91 98765 43210', '+919876543210'],
    ['India Delhi landline', '+91-11-2301-2345', '+911123012345'],
  ];
  it.each(table)('%s: %s → %s', (_country, typed, e164) => {
    expect(normalisePhone(typed)).toEqual({ ok: true, e164 });
  });

  it('treats every spelling of one number as the same E.164 number', () => {
    const spellings = ['+351 912 345 678', '+351912345678', '351 912 345 678', '00351912345678', '+351 (91) 234-5678'];
    expect(new Set(spellings.map((s) => (normalisePhone(s) as { e164: string }).e164))).toEqual(
      new Set(['+351912345678']),
    );
  });

  it('refuses numbers that are not valid for their country', () => {
    // Portuguese numbers have 9 national digits; 912345678 alone reads as +91 2345678 (India), too short there.
    for (const typed of ['+351 9123 456 789', '912345678', '+999 123 456 789']) {
      expect(normalisePhone(typed)).toEqual({ ok: false, error: 'format', message: FORMAT });
    }
  });

  it('keeps 9 to 15 digits, and LONG_PHONE_NUMBERS lifts the 15', () => {
    expect(normalisePhone('+351 9123')).toEqual({ ok: false, error: 'too_short', message: TOO_SHORT });
    expect(normalisePhone('+1 202 456')).toEqual({ ok: false, error: 'too_short', message: TOO_SHORT });
    // A Portuguese number of 7 digits (10 with the country code) is short, not malformed.
    for (const seven of ['+351 1234567', '+351 912 345 6', '+3512123456']) {
      expect(normalisePhone(seven)).toEqual({ ok: false, error: 'too_short', message: TOO_SHORT });
    }
    expect(normalisePhone('+49 30 1234567890123')).toEqual({ ok: false, error: 'too_long', message: TOO_LONG });
    expect(normalisePhone('+49 30 1234567890123', { longNumbers: true })).toEqual({
      ok: true,
      e164: '+49301234567890123',
    });
    expect(normalisePhone(`+49${'1'.repeat(30)}`, { longNumbers: true })).toMatchObject({
      ok: false,
      error: 'too_long',
      message: 'Phone number must have at most 20 digits.',
    });
  });
});

describe('normalisePhone: hostile input', () => {
  const rejected: [label: string, input: string | null | undefined, error: string, message: string][] = [
    ['empty', '', 'required', 'Phone number is required.'],
    ['spaces only', '   \t ', 'required', 'Phone number is required.'],
    ['null', null, 'required', 'Phone number is required.'],
    ['only direction marks', '\u200F\u202B\u202C', 'required', 'Phone number is required.'],
    ['1,000 digits', '9'.repeat(1000), 'too_long', TOO_LONG],
    ['1,000 letters', 'a'.repeat(1000), 'format', FORMAT],
    ['1,000 spaced digits', '12 '.repeat(333), 'too_long', TOO_LONG],
    ['numbers repeated', '+351 912 345 678 '.repeat(59), 'format', FORMAT],
    ['emoji', '📞📞📞📞📞📞📞📞📞', 'format', FORMAT],
    ['emoji after a number', '+351912345678 😀', 'format', FORMAT],
    ['emoji digits', '+3️⃣5️⃣1️⃣912345678', 'format', FORMAT],
    ['SQL', "' OR 1=1; --", 'format', FORMAT],
    ['SQL after a number', "+351912345678'; DROP TABLE contacts; --", 'format', FORMAT],
    ['HTML', '<img src=x onerror=alert(1)>', 'format', FORMAT],
    ['HTML around a number', '<b>+351912345678</b>', 'format', FORMAT],
    ['letters as digits', '+351 9I2 345 678', 'format', FORMAT],
    ['extension', '+351 912 345 678 ext. 12', 'format', FORMAT],
    ['NUL byte', '+351912345678\u0000', 'format', FORMAT],
    ['two plus signs', '++351912345678', 'format', FORMAT],
    ['plus in the middle', '+351+912345678', 'format', FORMAT],
  ];
  it.each(rejected)('rejects %s', (_label, input, error, message) => {
    expect(normalisePhone(input)).toEqual({ ok: false, error, message });
  });

  const cleaned: [label: string, input: string][] = [
    ['direction marks from a pasted contact', '\u202A+351 912 345 678\u202C'],
    ['right-to-left marks', '\u200F+351912345678\u200F'],
    ['a right-to-left override inside', '+351\u202E912345678'],
    ['zero-width spaces', '+351\u200B912\u200B345\u200B678'],
    ['non-breaking and thin spaces', '+351\u00A0912\u2009345\u202F678'],
    ['Arabic-Indic digits', '+٣٥١٩١٢٣٤٥٦٧٨'],
    ['full-width digits', '+３５１９１２３４５６７８'],
    ['a line break', '+351\n912 345 678'],
  ];
  it.each(cleaned)('accepts %s as a clean number', (_label, input) => {
    const result = normalisePhone(input);
    expect(result).toEqual({ ok: true, e164: '+351912345678' });
    expect((result as { e164: string }).e164).toMatch(CLEAN_E164);
  });
});

describe('validateContactName', () => {
  const accepted = [
    'Zé',
    'José',
    'Maria da Graça',
    "O'Brien",
    'O’Connor',
    'Ana-Sofia',
    'Jean-Luc Picard',
    'Müller',
    'Łukasz Żółć',
    'Nguyễn Văn An',
    'محمد',
    'אבי',
    '王小明',
    'Zoë', // e + combining diaeresis
    'x'.repeat(50),
  ];
  it.each(accepted)('accepts %s', (name) => {
    expect(validateContactName(name)).toBeNull();
  });

  const invalid = [
    'A',
    'x'.repeat(51),
    `${' '.repeat(10)}B`,
    'R2-D2',
    'Maria <b>',
    "Robert'); DROP TABLE contacts;--",
    '<script>alert(1)</script>',
    '😀😀😀',
    'Ana 😀',
    "--''",
    'Maria\u0000',
    'user@example.com',
    'x'.repeat(1000),
  ];
  it.each(invalid)('rejects %s', (name) => {
    expect(validateContactName(name)).toBe('setup.invalid_name');
  });

  it('requires a name', () => {
    for (const name of ['', '   ', null, undefined, '\u200F\u200E']) {
      expect(validateContactName(name)).toBe('setup.required_name');
    }
  });

  it('counts and stores the name trimmed, composed and with single spaces', () => {
    expect(normaliseContactName('  Maria \t da   Graça ')).toBe('Maria da Graça');
    expect(normaliseContactName('Jose\u0301')).toBe('José');
    expect(normaliseContactName('\u200FAvi\u200F')).toBe('Avi');
    expect(validateContactName(`  ${'y'.repeat(50)}  `)).toBeNull();
  });
});

describe('validateContact and parseContact', () => {
  it('returns no errors and the clean contact for a good one', () => {
    const input = { name: ' Maria ', phone_number: '351 912 345 678', relationship: ' Mãe ' };
    expect(validateContact(input, [])).toEqual({});
    expect(parseContact(input, ['+447911123456'])).toEqual({
      ok: true,
      contact: { name: 'Maria', phone_number: '+351912345678', relationship: 'Mãe' },
    });
  });

  it('refuses a number already in the list, in any spelling', () => {
    for (const phone of ['+351 912 345 678', '+351912345678', '00351 912345678']) {
      expect(validateContact({ name: 'Maria', phone_number: phone }, ['+351912345678'])).toEqual({
        phone_number: {
          code: 'duplicate_phone',
          message: 'This number is already in your contacts.',
        },
      });
    }
  });

  it('reports every field at once with its i18n key and English text', () => {
    expect(validateContact({ name: '', phone_number: '12', relationship: 'r'.repeat(51) }, [])).toEqual({
      name: { code: 'name_required', message: CONTACT_MESSAGES.requiredName },
      phone_number: { code: 'phone_too_short', message: TOO_SHORT },
      relationship: {
        code: 'invalid_relationship',
        message: CONTACT_MESSAGES.relationshipTooLong,
      },
    });
    expect(validateContact({ name: 'A1', phone_number: 'abc' }, [])).toEqual({
      name: { code: 'invalid_name', message: CONTACT_MESSAGES.invalidName },
      phone_number: { code: 'phone_format', message: FORMAT },
    });
    expect(validateContact({ name: 'Maria' }, [])).toEqual({
      phone_number: { code: 'phone_required', message: 'Phone number is required.' },
    });
  });

  it('treats the relationship as optional plain text', () => {
    expect(validateContact({ name: 'Maria', phone_number: '+351912345678', relationship: null }, [])).toEqual({});
    expect(validateContact({ name: 'Maria', phone_number: '+351912345678', relationship: '<i>Mãe</i>' }, [])).toEqual(
      {},
    );
    expect(
      validateContact({ name: 'Maria', phone_number: '+351912345678', relationship: 'Mãe\u0007' }, []).relationship,
    ).toEqual({
      code: 'invalid_relationship',
      message: CONTACT_MESSAGES.invalidRelationship,
    });
  });

  it('lifts the 15-digit limit with longNumbers', () => {
    const input = { name: 'Escritório', phone_number: '+49 30 1234567890123' };
    expect(validateContact(input, []).phone_number?.code).toBe('phone_too_long');
    expect(validateContact(input, [], { longNumbers: true })).toEqual({});
  });
});
