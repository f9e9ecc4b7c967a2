/** The key map as a node opens it (team/key-directory.ts): a file it cannot read is named, with why, so the operator can fix the path. */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { KeyDirectory } from '../../src/team/key-directory.js';

const log = { info: (): void => undefined, error: (): void => undefined };

test('a key map file that cannot be read is named with the reason, its escape sequences escaped', () => {
  const folder = mkdtempSync(join(tmpdir(), 'key-directory-'));
  const missing = join(folder, 'keys.sealed');
  assert.throws(() => new KeyDirectory({ file: missing, secret: 'a-secret-of-some-length', unmapped: 'refuse' }, log), {
    message: `MARKET_DATA_KEY_MAP_FILE=${missing} cannot be read (no such file)`,
  });
  assert.throws(() => new KeyDirectory({ file: folder, secret: 'a-secret-of-some-length', unmapped: 'refuse' }, log), {
    message: `MARKET_DATA_KEY_MAP_FILE=${folder} cannot be read (a folder, not a file)`,
  });
  assert.throws(() => new KeyDirectory({ file: `${folder}/\u001b[31m`, secret: 'a-secret-of-some-length', unmapped: 'refuse' }, log), {
    message: `MARKET_DATA_KEY_MAP_FILE="${folder}/\\u001b[31m" cannot be read (no such file)`,
  });
});
