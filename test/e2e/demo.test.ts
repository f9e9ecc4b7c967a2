/**
 * `npm run demo` is the first screen a new user sees: what it prints must hold together
 * the way a trader reads it, whatever the clock and the simulated market say today.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { TOOLSETS } from '../../src/catalog/index.js';
import { CLI } from '../helpers/mcp.js';

let printed: string | undefined;

/** What `npm run demo` prints, run once for the tests of this file. */
function demoOutput(): string {
  if (printed === undefined) {
    const run = spawnSync(process.execPath, [CLI, 'demo'], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '' }, timeout: 60_000 });
    assert.equal(run.status, 0, run.stderr);
    printed = run.stdout;
  }
  return printed;
}

test('the demo reads true: flip, spot and the sign of total GEX agree, walls in order, GEX in its unit', () => {
  const out = demoOutput();
  const usd = (label: string): number => Number(new RegExp(`${label}\\s+\\$([0-9.,]+)`).exec(out)?.[1]?.replaceAll(',', '') ?? NaN);
  const spot = usd('spot');
  const flip = usd('gamma flip');
  const putWall = usd('put wall');
  const callWall = usd('call wall');
  const total = /total net GEX\s+(-?)\$([0-9.]+)B/.exec(out);
  assert.ok(total, 'total GEX printed');
  assert.match(out, /total net GEX .* per 1% move/, 'GEX is given with its unit');
  const sign = total[1] === '-' ? -1 : 1;
  assert.ok([spot, flip, putWall, callWall].every(Number.isFinite), out.slice(0, 800));
  assert.equal(spot > flip, sign > 0, `spot ${spot} against flip ${flip}, total GEX ${total[0]}`);
  assert.match(out, spot > flip ? /spot above: dealers long gamma/ : /spot below: dealers short gamma/);
  assert.ok(putWall <= callWall, `put wall ${putWall} below the call wall ${callWall}`);
  for (const [, name, value] of out.matchAll(/\b(QQQ|IWM|TLT|GLD) (-?[0-9.]+)/g)) {
    const correlation = Number(value);
    assert.ok(correlation >= -1 && correlation <= 1, `${name} correlation ${correlation}`);
  }
  // The budget it ends with, in figures: requests left of the minute's limit, quota left of the month's.
  const rate = /requests left this minute\s+(\d+) of (\d+)/.exec(out);
  const quota = /monthly quota left\s+([\d,]+) of ([\d,]+)/.exec(out);
  assert.ok(rate && quota, `the budget is printed: ${out.slice(-500)}`);
  assert.ok(Number(rate[1]) <= Number(rate[2]) && Number(rate[2]) > 0, rate[0]);
  assert.ok(Number(quota[1]?.replace(/,/g, '')) <= Number(quota[2]?.replace(/,/g, '')), quota[0]);
  assert.doesNotMatch(out, /undefined|NaN/, 'no figure is missing');
});

test('the toolsets the demo lists its tools by are ones --toolsets takes, each tool under the one it comes with', () => {
  const out = demoOutput();
  const listing = out.slice(out.indexOf('by toolset'), out.indexOf('\n\n', out.indexOf('by toolset')));
  const rows = [...listing.matchAll(/^ {2}([a-z]+) +([a-z_*, ]+)$/gm)].map(([, toolset, names]) => ({ toolset, names }));
  assert.ok(rows.length >= 10, `the tools are listed by toolset: ${listing}`);
  // A user who reads "ticker  ticker_briefing" tries --toolsets ticker, and gets only api_status.
  for (const { toolset } of rows) assert.ok(toolset && Object.hasOwn(TOOLSETS, toolset), `"${toolset}" is a toolset --toolsets takes`);
  assert.match(listing, /^ {2}shorts +.*\bticker_briefing\b/m, 'the briefing is listed with shorts, which offers it');
  assert.match(listing, /api_status/, 'api_status is listed, as always offered');
});

test('a reader that stops after the first lines (demo | head) ends the demo quietly: exit 0, no stack trace', async () => {
  const child = spawn(process.execPath, [CLI, 'demo'], { env: { PATH: process.env['PATH'] ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit');
  // The first chunk read, the pipe is closed as head closes it.
  await once(child.stdout, 'data');
  child.stdout.destroy();
  const [code] = (await exited) as [number | null];
  assert.equal(code, 0, stderr);
  assert.doesNotMatch(stderr, /EPIPE|Error|at /, 'no stack trace');
});
