import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import en from '../../../src/i18n/locales/en';
import pt from '../../../src/i18n/locales/pt';

const root = path.resolve(import.meta.dirname, '../../..');

/** Source files of the app (the emergency page has its own strings). */
function appFiles(dir = path.join(root, 'src')): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return name === 'alert' ? [] : appFiles(file);
    return /\.tsx?$/.test(name) ? [file] : [];
  });
}

function has(messages: object, key: string): boolean {
  const parts = key.split('.');
  const last = parts.pop()!;
  let node: unknown = messages;
  for (const part of parts) node = (node as Record<string, unknown> | undefined)?.[part];
  const leaf = node as Record<string, unknown> | undefined;
  return typeof leaf?.[last] === 'string' || typeof leaf?.[`${last}_other`] === 'string';
}

describe('message keys used by the app', () => {
  it('exist in both languages', () => {
    const sources = [
      ...appFiles(),
      path.join(root, 'common/contact-rules.ts'),
      path.join(root, 'common/profile-rules.ts'),
    ].map((file) => readFileSync(file, 'utf8'));
    const used = new Set<string>();
    for (const source of sources) {
      for (const match of source.matchAll(/\bt\(\s*'([\w]+(?:\.[\w]+)+)'/g)) used.add(match[1]!);
      for (const match of source.matchAll(/\bkey:\s*'([\w]+(?:\.[\w]+)+)'/g)) used.add(match[1]!);
      for (const match of source.matchAll(/'((?:setup|errors|reset|verify|register|home|pricing|trial)\.[\w]+)'/g)) {
        used.add(match[1]!);
      }
    }
    expect(used.size).toBeGreaterThan(100);
    const missing = [...used].filter((key) => !has(pt, key) || !has(en, key));
    expect(missing).toEqual([]);
  });
});
