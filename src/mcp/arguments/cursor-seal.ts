/**
 * The tag that makes our cursors ours. A cursor carries a query and an upstream position
 * the server will act on, so one built by hand (an upstream cursor the upstream never
 * gave, an offset past the page's end) must be refused before any request, as the
 * refusal text promises. The key is derived from the API key, so every node of the
 * account (and a restarted one) verifies the others' cursors without configuration; the
 * key itself never enters a cursor.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Bytes of HMAC-SHA256 kept: 96 bits is out of reach of guessing and keeps cursors short. */
const TAG_BYTES = 12;

// One key per process, set at start-up; until then (and with no key at all) a random one,
// so an unconfigured process still never accepts a cursor it did not mint itself.
let cursorKey: Buffer = randomBytes(32);

/** Keys cursors to the account's API key (in --demo, the simulator's fixed one). */
export function keyCursorsTo(apiKey: string | undefined): void {
  cursorKey =
    apiKey === undefined || apiKey === '' ? randomBytes(32) : createHmac('sha256', apiKey).update('market-data-mcp cursor v1').digest();
}

function tagOf(payload: string): Buffer {
  return createHmac('sha256', cursorKey).update(payload).digest().subarray(0, TAG_BYTES);
}

export function seal(payload: string): string {
  return `${payload}.${tagOf(payload).toString('base64url')}`;
}

/** The payload of a sealed cursor whose tag verifies, else undefined. */
export function unseal(sealed: string): string | undefined {
  const dot = sealed.lastIndexOf('.');
  if (dot < 0) return undefined;
  const payload = sealed.slice(0, dot);
  const given = Buffer.from(sealed.slice(dot + 1), 'base64url');
  const expected = tagOf(payload);
  return given.length === expected.length && timingSafeEqual(given, expected) ? payload : undefined;
}
