/**
 * A device key's name, for the owner's list in Setup: the browser and system its User-Agent
 * names, from a fixed vocabulary ("Chrome · Android", "Safari · iPhone"). Nothing of the header
 * itself is kept, so a forged User-Agent can put no text of its own on the owner's screen.
 */

/** Browsers by the token that gives them away, the more specific first (Edge and Opera also say "Chrome"). */
const BROWSERS: [RegExp, string][] = [
  [/\bEdg(e|A|iOS)?\//, 'Edge'],
  [/\b(OPR|Opera|OPT)\//, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\b(Firefox|FxiOS)\//, 'Firefox'],
  [/\bCriOS\//, 'Chrome'],
  [/\bChrom(e|ium)\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
  [/\bMobile\/\w+/, 'Safari'],
];

/** Systems, the more specific first (Android says "Linux", an iPhone "like Mac OS X"). */
const SYSTEMS: [RegExp, string][] = [
  [/\biPhone\b/, 'iPhone'],
  [/\biPad\b/, 'iPad'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMacintosh\b|\bMac OS X\b/, 'Mac'],
  [/\bLinux\b/, 'Linux'],
];

/** Longer than any real User-Agent worth reading: the rest is not looked at. */
const READ_AT_MOST = 512;

const firstMatch = (table: [RegExp, string][], text: string) => table.find(([pattern]) => pattern.test(text))?.[1];

/** The device's name from its User-Agent, or null when it names no browser or system we know. */
export function deviceName(userAgent: string | undefined): string | null {
  const text = (userAgent ?? '').slice(0, READ_AT_MOST);
  const parts = [firstMatch(BROWSERS, text), firstMatch(SYSTEMS, text)].filter((part) => part !== undefined);
  return parts.length > 0 ? parts.join(' · ') : null;
}
