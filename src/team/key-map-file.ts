/**
 * The per-user key map at rest: which signed-in subject spends which API key (and, when
 * the operator knows it, which upstream account that key belongs to). The file is sealed
 * with AES-256-GCM under a key derived by scrypt from a secret held in the environment,
 * so a copy of the file (a backup, a volume snapshot, a config repository) reveals
 * neither the keys nor who holds one.
 */
import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import * as z from 'zod';

export interface UserKey {
  /** The API key this subject's calls spend. */
  readonly key: string;
  /** The upstream account of that key: its gate is shared with every other key of the account. */
  readonly account?: string | undefined;
}

/** Subject (the access token's `sub`) → its key. */
export type KeyMap = ReadonlyMap<string, UserKey>;

const FORMAT = 'market-data-mcp key map';
const SALT_BYTES = 16;
const IV_BYTES = 12;
// scrypt's cost: about 50 ms on one core, paid once per start or per `keys` command.
const SCRYPT = { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;
/** Shorter secrets are refused: the seal is only as strong as what it is derived from. */
export const MIN_SECRET_LENGTH = 32;

const envelopeSchema = z.object({
  format: z.literal(FORMAT),
  version: z.literal(1),
  salt: z.base64(),
  iv: z.base64(),
  tag: z.base64(),
  sealed: z.base64(),
});

const userKeySchema = z.object({
  key: z.string().min(8).max(512),
  account: z.string().trim().min(1).max(200).optional(),
});
const plainSchema = z.object({ users: z.record(z.string().min(1).max(512), userKeySchema) });

export class KeyMapError extends Error {}

function derive(secret: string, salt: Buffer): Buffer {
  if (secret.length < MIN_SECRET_LENGTH)
    throw new KeyMapError(
      `the key map secret is shorter than ${MIN_SECRET_LENGTH} characters (\`market-data-mcp keys new-secret\` makes one)`,
    );
  return scryptSync(secret, salt, 32, SCRYPT);
}

export function sealKeyMap(map: KeyMap, secret: string): string {
  const salt = randomBytes(SALT_BYTES);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', derive(secret, salt), iv).setAAD(Buffer.from(FORMAT));
  const plain = JSON.stringify({ users: Object.fromEntries(map) });
  const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  const envelope: z.infer<typeof envelopeSchema> = {
    format: FORMAT,
    version: 1,
    salt: salt.toString('base64'),
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    sealed: sealed.toString('base64'),
  };
  return `${JSON.stringify(envelope, null, 2)}\n`;
}

export function openKeyMap(text: string, secret: string): KeyMap {
  let envelope: z.infer<typeof envelopeSchema>;
  try {
    envelope = envelopeSchema.parse(JSON.parse(text));
  } catch {
    throw new KeyMapError('the file is not a sealed key map (written by `market-data-mcp keys set`)');
  }
  let plain: string;
  try {
    const decipher = createDecipheriv(
      'aes-256-gcm',
      derive(secret, Buffer.from(envelope.salt, 'base64')),
      Buffer.from(envelope.iv, 'base64'),
    );
    decipher.setAAD(Buffer.from(FORMAT)).setAuthTag(Buffer.from(envelope.tag, 'base64'));
    plain = Buffer.concat([decipher.update(Buffer.from(envelope.sealed, 'base64')), decipher.final()]).toString('utf8');
  } catch (error) {
    if (error instanceof KeyMapError) throw error;
    throw new KeyMapError('the key map does not open with this secret (another secret, or the file was altered)');
  }
  const parsed = plainSchema.safeParse(JSON.parse(plain));
  if (!parsed.success) throw new KeyMapError('the key map opened but its content is not a key map');
  return new Map(Object.entries(parsed.data.users).map(([subject, entry]) => [subject, { key: entry.key, account: entry.account }]));
}

export function readKeyMap(file: string, secret: string): KeyMap {
  return openKeyMap(readFileSync(file, 'utf8'), secret);
}

/** Written beside and renamed over: a server reading the file never sees half of it. */
export function writeKeyMap(file: string, map: KeyMap, secret: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, sealKeyMap(map, secret), { mode: 0o600 });
  renameSync(temporary, file);
}
