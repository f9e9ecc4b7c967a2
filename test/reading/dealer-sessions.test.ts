/**
 * view=sessions answers "how has the flip moved over three sessions?" and "since when are
 * we in negative gamma?" in one small call, and agrees with the levels it summarises.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { withSimulator } from '../helpers/http.js';
import { connectV2 } from '../helpers/mcp.js';

interface Summary {
  session_date_et: string;
  flip_open_usd: number;
  flip_close_usd: number;
  flip_low_usd: number;
  flip_high_usd: number;
  spot_close_usd: number;
  spot_vs_flip_close_pct: number;
  regime_close: string;
  regime_since: string;
  call_wall_close_usd: number;
  put_wall_close_usd: number;
  total_gex_usd_m_low: number;
  total_gex_usd_m_high: number;
  total_gex_usd_m_close: number;
}

test('view=sessions: one row per session of the three, under 1,500 tokens, agreeing with the levels of each session', async () => {
  await withSimulator({}, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-live-key' });
    try {
      const result = await client.callTool({ name: 'derived_dealer_gex_history', arguments: { ticker: 'QQQ', view: 'sessions' } });
      assert.notEqual(result.isError, true, JSON.stringify(result).slice(0, 400));
      const tokens = countTokens(JSON.stringify(result.structuredContent));
      assert.ok(tokens <= 1500, `${tokens} tokens`);
      const summaries = (result.structuredContent as { data: { session_summaries: Summary[] } }).data.session_summaries;
      assert.equal(summaries.length, 3, 'three sessions');
      const dates = summaries.map((s) => s.session_date_et);
      assert.deepEqual(dates, [...dates].sort().reverse(), 'newest first, no repeat');
      assert.equal(new Set(dates).size, 3);
      for (const s of summaries) {
        const levels = await client.callTool({
          name: 'derived_dealer_gex_history',
          arguments: { ticker: 'QQQ', view: 'levels', session_date: s.session_date_et },
        });
        const { columns, sessions } = (levels.structuredContent as { data: { columns: string[]; sessions: { rows: number[][] }[] } }).data;
        const rows = sessions[0]?.rows ?? [];
        const col = (name: string): number[] => rows.map((r) => Number(r[columns.indexOf(name)]));
        const flips = col('gamma_flip_usd');
        assert.ok(flips.length > 0, `levels of ${s.session_date_et}`);
        // Levels are newest first: the close is the first row, the open the last.
        assert.equal(s.flip_close_usd, flips[0]);
        assert.equal(s.flip_open_usd, flips[flips.length - 1]);
        assert.equal(s.flip_low_usd, Math.min(...flips));
        assert.equal(s.flip_high_usd, Math.max(...flips));
        assert.equal(s.spot_close_usd, col('spot_usd')[0]);
        assert.equal(s.call_wall_close_usd, col('call_wall_strike_usd')[0]);
        assert.equal(s.total_gex_usd_m_close, col('total_gex_usd_m')[0]);
        assert.ok(s.total_gex_usd_m_low <= s.total_gex_usd_m_close && s.total_gex_usd_m_close <= s.total_gex_usd_m_high);
        assert.equal(s.regime_close, s.spot_close_usd >= s.flip_close_usd ? 'positive_gamma' : 'negative_gamma');
        assert.equal(Math.sign(s.spot_vs_flip_close_pct) >= 0, s.regime_close === 'positive_gamma');
      }
      // The regime's start is never after the close it describes, and the newest session's is the latest of all.
      const sinceOf = (s: Summary): number => Date.parse(s.regime_since.replace(/^before /, ''));
      for (const s of summaries) assert.ok(Number.isFinite(sinceOf(s)), s.regime_since);
      const [newest, ...older] = summaries;
      if (newest) for (const s of older) assert.ok(sinceOf(newest) >= sinceOf(s));
    } finally {
      await close();
    }
  });
});
