/** True on iPhone and iPad (iPadOS reports itself as a Mac with touch). */
export function isIos(): boolean {
  const ua = navigator.userAgent;
  return /iPhone|iPad|iPod/.test(ua) || (/Macintosh/.test(ua) && navigator.maxTouchPoints > 1);
}

/**
 * An `sms:` link to several numbers with a prefilled text: iOS opens it only in its
 * `sms:/open?addresses=` form, Android and desktops take `sms:+1,+2?body=`.
 */
export function smsLink(phones: string[], body: string, ios = isIos()): string {
  const to = phones.map((p) => p.replace(/[^\d+]/g, '')).join(',');
  const text = encodeURIComponent(body);
  return ios ? `sms:/open?addresses=${to}&body=${text}` : `sms:${to}?body=${text}`;
}
