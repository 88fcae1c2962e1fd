import { describe, expect, it } from 'vitest';
import type { PageData } from './api';
import { hasMaskedNumbers, keepWholeNumbers, textableNumbers } from './numbers';

const page = (contacts: PageData['contacts'], numbers_masked?: boolean): PageData => ({
  owner_name: 'Ana',
  language: 'pt',
  gps_enabled: true,
  countdown_seconds: 5,
  contacts,
  ...(numbers_masked === undefined ? {} : { numbers_masked }),
  messages: { real: 'EMERGÊNCIA', test: 'TESTE' },
});
const whole = page(
  [
    { id: 'c1', name: 'Rui', phone_number: '+351912345678' },
    { id: 'c2', name: 'Eva', phone_number: '+351934567890' },
  ],
  false,
);
const masked = page(
  [
    { id: 'c1', name: 'Rui', phone_number: '•••••••678' },
    { id: 'c2', name: 'Eva', phone_number: '•••••••890' },
  ],
  true,
);

describe("the contacts' numbers on the emergency page", () => {
  it('texts whole numbers, and copies cached before masking existed; never a masked one', () => {
    expect(textableNumbers(whole)).toEqual(['+351912345678', '+351934567890']);
    expect(textableNumbers(page([{ name: 'Rui', phone_number: '+351912345678' }]))).toEqual(['+351912345678']);
    expect(hasMaskedNumbers(masked)).toBe(true);
    expect(textableNumbers(masked)).toBeNull();
    // A masked number is never texted, whatever the flag says.
    expect(textableNumbers(page([{ id: 'c1', name: 'Rui', phone_number: '•••••••678' }], false))).toBeNull();
  });

  it("keeps the owner's phone's whole numbers when the HTML's copy came masked, for the same contacts only", () => {
    expect(keepWholeNumbers(masked, whole, true)).toEqual({
      ...masked,
      contacts: whole.contacts,
      numbers_masked: false,
    });
    // Without the owner's key on this phone, nothing whole is kept.
    expect(keepWholeNumbers(masked, whole, false)).toBe(masked);
    // A contact changed since (another id, or another number): the masked copy stands.
    const rui = { id: 'c1', name: 'Rui', phone_number: '+351912345678' };
    const eva = { id: 'c2', name: 'Eva', phone_number: '+351934567890' };
    const changed = page([rui, { ...eva, id: 'c3' }], false);
    expect(keepWholeNumbers(masked, changed, true)).toBe(masked);
    const renumbered = page([{ ...rui, phone_number: '+351912345111' }, eva], false);
    expect(keepWholeNumbers(masked, renumbered, true)).toBe(masked);
    // Nothing to keep from a masked cache, nothing to change in a whole copy.
    expect(keepWholeNumbers(masked, masked, true)).toBe(masked);
    expect(keepWholeNumbers(whole, undefined, true)).toBe(whole);
  });
});
