import { createHash } from 'node:crypto';
import { randomToken } from '../../lib/ids.js';

/** The live page of an alert: `{APP_URL}/a/{public_id}`. */
export const livePageUrl = (appUrl: string, publicId: string): string => `${appUrl}/a/${publicId}`;

/**
 * The live page as one contact's SMS carries it: `{APP_URL}/a/{public_id}?c={key}`, the key
 * that contact's own (random per delivery, 11 characters: 64 bits). With it, "on my way"
 * always has a slot and is named after the contact.
 */
export const contactPageUrl = (appUrl: string, publicId: string, key: string): string =>
  `${livePageUrl(appUrl, publicId)}?c=${key}`;

/** A new contact key (64 random bits, base64url). */
export const newContactKey = (): string => randomToken(8);

/** How a contact key is stored and looked up: SHA-256, base64url. */
export const contactKeyHash = (key: string): string => createHash('sha256').update(key).digest('base64url');
