/**
 * An error's `docs_url` in `--demo` leads somewhere that outlives the session and opens for
 * any client: this project's public README, at the row of the code; never the simulator's
 * loopback port that closes with the process, nor a file:// path into the install folder,
 * which handed the user's local path to the model and opened nowhere for a remote client.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { API_ERROR_CODES } from '../../src/catalog/error-codes.js';
import { connectV2, errorOf } from '../helpers/mcp.js';

test("--demo: an upstream error's docs_url is the public README's row for its code, never a local file", async () => {
  const { client, close } = await connectV2({ args: ['--demo'] });
  let docsUrl = '';
  try {
    const error = errorOf(await client.callTool({ name: 'volatility_risk_reversal_skew', arguments: { ticker: 'ZZZZ' } }));
    assert.equal(error.code, 'NOT_FOUND', 'the upstream refused it');
    docsUrl = error.docs_url ?? '';
  } finally {
    await close();
  }
  const url = new URL(docsUrl);
  assert.equal(url.protocol, 'https:', docsUrl);
  assert.match(url.pathname, /\/README\.md$/);
  assert.equal(url.hash, '#NOT_FOUND');
  // The page it names is this repository's README: every code the API answers has its row there.
  const text = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  assert.match(text, /^# market-data-mcp/, 'the project README');
  const missing = Object.keys(API_ERROR_CODES).filter((code) => !text.includes(`<a id="${code}"></a>`));
  assert.deepEqual(missing, [], 'every code the API answers has its row to land on');
});
