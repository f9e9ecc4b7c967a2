/**
 * A text value cut to fit is cut after a whole character: never inside a surrogate pair
 * (a lone surrogate is not valid Unicode, and some clients refuse the answer) nor between a
 * letter and its combining marks or inside an emoji sequence (trial of issue 29: 3,000
 * characters ending in an emoji, runs of emoji; 5 strings of one answer ended in a lone surrogate).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { squeeze } from '../../src/mcp/answers/trimming.js';
import { sanitizeText } from '../../src/sanitize.js';
import { wholeCharacters } from '../../src/text-cut.js';
import { connectV2, textOf } from '../helpers/mcp.js';
import { withFakeUpstream } from '../helpers/fake-upstream.js';

const GRAPHEMES = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
/** Characters a cut can split: a surrogate pair, a letter with two combining marks, a family (ZWJ), a flag, a skin tone. */
const PIECES = ['a', '📈', 'é', 'e\u0301\u0323', '👨\u200D👩\u200D👧', '🇫🇷', '👍🏽', '東'];

/** Whether `cut` (less its marker) is a run of whole clusters of `whole`, from its start. */
function endsOnCluster(whole: string, cut: string): boolean {
  const kept = cut.replace(/…(\[cut\])?$/u, '');
  if (!whole.startsWith(kept)) return false;
  const ends = new Set([0, ...[...GRAPHEMES.segment(whole)].map((s) => s.index + s.segment.length)]);
  return ends.has(kept.length);
}

/** The text as cleaned whatever its length: the joiners of an emoji sequence are hidden characters, removed. */
const cleaned = (text: string): string => sanitizeText(text, Number.MAX_SAFE_INTEGER);

test('a cut ends after a whole grapheme cluster, whatever the text and the length', () => {
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 60 }), fc.integer({ min: 2, max: 80 }), (parts, max) => {
      const text = parts.join('');
      const cut = sanitizeText(text, max);
      assert.ok(cut.length <= max, `${cut.length} > ${max}`);
      assert.doesNotMatch(cut, /\p{Cs}/u, 'no lone surrogate');
      assert.ok(endsOnCluster(cleaned(text), cut), `cut inside a character: ${JSON.stringify(cut)}`);
      const prefix = wholeCharacters(text, max);
      assert.ok(prefix.length <= max && endsOnCluster(text, prefix), JSON.stringify(prefix));
    }),
  );
});

test('a value squeezed into the result budget is cut on whole characters too', async () => {
  for (const piece of PIECES.filter((p) => p.length > 1)) {
    const note = piece.repeat(3000);
    const squeezed = (await squeeze({ note }, (v) => ({ data: v }), 300)) as { note: string } | null;
    assert.ok(squeezed && squeezed.note.endsWith('…[cut]') && squeezed.note.length < note.length, `${piece}: cut to fit`);
    assert.ok(endsOnCluster(note, squeezed.note), `${piece}: cut inside a character: ${JSON.stringify(squeezed.note.slice(-12))}`);
  }
});

test('long values of emoji and combining letters reach the agent cut on whole characters, in the text and when squeezed to the budget', async () => {
  await withFakeUpstream(async (fake) => {
    const values = [
      `${'x'.repeat(2998)}📈`,
      '📈'.repeat(1500),
      'e\u0301'.repeat(1500),
      '👨\u200D👩\u200D👧'.repeat(400),
      `${'y'.repeat(1999)}🇫🇷🇫🇷`,
    ];
    fake.answer = () => ({ body: { data: values.map((note, i) => ({ id: i, note })) } });
    for (const budget of ['25000', '900']) {
      const server = await connectV2({ baseUrl: fake.url, key: 'fake-key-0123456789', env: { MARKET_DATA_RESULT_TOKENS: budget } });
      try {
        const result = await server.client.callTool({ name: 'stocks_lit_trades_recent', arguments: {} });
        assert.notEqual(result.isError, true, textOf(result));
        const answer = JSON.parse(textOf(result)) as { data: { id: number; note: string }[] | null };
        const rows = answer.data ?? [];
        assert.ok(rows.length > 0, `budget ${budget}: rows came back`);
        let cut = 0;
        for (const row of rows) {
          const whole = values[row.id] ?? '';
          if (row.note !== cleaned(whole)) cut += 1;
          assert.doesNotMatch(row.note, /\p{Cs}/u, `budget ${budget}, value ${row.id}: a lone surrogate`);
          assert.ok(
            endsOnCluster(cleaned(whole), row.note),
            `budget ${budget}, value ${row.id} cut inside a character: ${JSON.stringify(row.note.slice(-12))}`,
          );
        }
        assert.ok(cut > 0, `budget ${budget}: values were cut`);
      } finally {
        await server.close();
      }
    }
  });
});
