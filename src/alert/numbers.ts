import type { PageData } from './api';

/**
 * The contacts' numbers on this page. The server gives them whole only to the owner's proof
 * (the device key): to a link alone each is masked, "•••••••678" (`numbers_masked`). A masked
 * number cannot be texted, so "send from my phone" needs the whole ones.
 */

/** What the server puts in place of the hidden digits. */
const MASK = '•';

/** The last digits of a number, as a masked copy shows them. */
const lastDigits = (phone: string) => phone.replace(/\D/g, '').slice(-3);

/** Whether the page's data holds its contacts' numbers masked (copies from before masking had them whole). */
export const hasMaskedNumbers = (page: Pick<PageData, 'contacts' | 'numbers_masked'>) =>
  page.numbers_masked === true || page.contacts.some((c) => c.phone_number.includes(MASK));

/** The numbers the phone's own SMS can go to, or null while any of them is masked. */
export const textableNumbers = (page: Pick<PageData, 'contacts' | 'numbers_masked'>): string[] | null =>
  hasMaskedNumbers(page) ? null : page.contacts.map((c) => c.phone_number);

/**
 * `page` (masked: the server's copy that came with the HTML, read without proof) with the whole
 * numbers of `cached`, this device's earlier copy read with the owner's proof, when every
 * contact is the same one (its id) ending in the same digits; otherwise `page` as it is. Only
 * where this device keeps the owner's key: a phone that no longer proves the owner gets none.
 */
export function keepWholeNumbers(page: PageData, cached: PageData | undefined, hasKey: boolean): PageData {
  if (!hasKey || !cached || !hasMaskedNumbers(page) || hasMaskedNumbers(cached)) return page;
  const whole = new Map(cached.contacts.map((c) => [c.id, c.phone_number]));
  const contacts = page.contacts.flatMap((c) => {
    const number = c.id ? whole.get(c.id) : undefined;
    return number && lastDigits(number) === lastDigits(c.phone_number) ? [{ ...c, phone_number: number }] : [];
  });
  return contacts.length === page.contacts.length ? { ...page, contacts, numbers_masked: false } : page;
}
