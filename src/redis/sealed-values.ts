/**
 * Cached answers sealed before they reach Redis: whoever holds the Redis URL can read its
 * values, but not the answers of a key they do not have. AES-256-GCM with a key derived
 * from the API key by HKDF (node:crypto), the entry's name as associated data, so an
 * entry copied under another name does not open either.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

export interface ValueSeal {
  seal(plain: string, name: string): string;
  /** The plain text, or undefined when the value was not sealed by this key for this name. */
  open(sealed: string, name: string): string | undefined;
}

const VERSION = 's1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export function sealFor(apiKey: string): ValueSeal {
  const key = Buffer.from(hkdfSync('sha256', apiKey, 'market-data-mcp/redis-cache', 'aes-256-gcm v1', 32));
  return {
    seal(plain, name) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(name));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return VERSION + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
    },
    open(sealed, name) {
      if (!sealed.startsWith(VERSION)) return undefined;
      const bytes = Buffer.from(sealed.slice(VERSION.length), 'base64');
      if (bytes.length < IV_BYTES + TAG_BYTES) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES)).setAAD(Buffer.from(name));
        decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
        return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        return undefined;
      }
    },
  };
}
