/**
 * An error's `docs_url` in `--demo` leads somewhere that outlives the session: the README
 * the package ships, at the row of the code, not the simulator's loopback port that closes
 * with the process.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { API_ERROR_CODES } from '../../src/catalog/error-codes.js';
import { connectV2, errorOf } from '../helpers/mcp.js';

test("--demo: an upstream error's docs_url is the shipped README's row for its code, still there after the server stops", async () => {
  const { client, close } = await connectV2({ args: ['--demo'] });
  let docsUrl = '';
  try {
    const error = errorOf(await client.callTool({ name: 'volatility_risk_reversal_skew', arguments: { ticker: 'ZZZZ' } }));
    assert.equal(error.code, 'NOT_FOUND', 'the upstream refused it (a local refusal carries no docs_url)');
    docsUrl = error.docs_url ?? '';
  } finally {
    await close();
  }
  const url = new URL(docsUrl);
  assert.equal(url.protocol, 'file:', docsUrl);
  assert.equal(url.hash, '#NOT_FOUND');
  const readme = fileURLToPath(new URL(url.pathname, 'file:'));
  assert.ok(existsSync(readme), `${readme} exists once the demo has stopped`);
  const text = readFileSync(readme, 'utf8');
  assert.match(text, /^# market-data-mcp/, 'the package README');
  const missing = Object.keys(API_ERROR_CODES).filter((code) => !text.includes(`<a id="${code}"></a>`));
  assert.deepEqual(missing, [], 'every code the API answers has its row to land on');
});
