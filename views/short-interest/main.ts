/**
 * Short interest view: the screener as ranked bars (short % of float, days to cover),
 * and for one ticker its daily short volume ratio; picking a ticker fetches its series
 * through the host (tools/call) without a new question to the agent.
 */
import { html } from '../shared/dom.js';
import { percent, str } from '../shared/format.js';
import { HostLink, type ToolResult } from '../shared/host-link.js';
import { applyHostTheme } from '../shared/theme.js';
import { rankedBars, ratioChart, venueChart } from './charts.js';
import { ranked, shortPayload, type RankBy, type RatioPoint, type ScreenerRow } from './model.js';

const RATIO_TOOL = 'shorts_volume_and_ratio';

const title = html('h1', {}, 'Short interest');
const subtitle = html('p', { class: 'sub' }, 'Waiting for the tool result…');
const main = html('div');
const detail = html('div');
const status = html('p', { class: 'status', role: 'status' });
document.body.append(title, subtitle, main, detail, status);

let args: Record<string, unknown> = {};

const link = new HostLink(
  { name: 'market-data-mcp short interest view', version: '1.0.0' },
  {
    onToolInput: (input) => (args = input),
    onToolResult: (result) => void show(result),
    onHostContext: applyHostTheme,
  },
);

function say(text: string, error = false): void {
  status.textContent = text;
  status.className = error ? 'status error' : 'status';
}

function errorText(result: ToolResult): string {
  const text = result.content?.find((c) => c.type === 'text');
  return text && 'text' in text ? text.text : 'The tool answered with an error.';
}

async function show(result: ToolResult): Promise<void> {
  if (result.isError) {
    subtitle.textContent = errorText(result);
    return;
  }
  const toolName = link.hostContext().toolInfo?.tool.name;
  const payload = shortPayload(result.structuredContent, toolName, str(args['ticker']));
  switch (payload.kind) {
    case 'screener':
      showScreener(payload.rows, 'shortFloatPct');
      break;
    case 'ratio':
      title.textContent = `${payload.ticker ?? ''} short volume ratio`.trim();
      subtitle.textContent = ratioSummary(payload.points);
      main.replaceChildren(ratioChart(payload.points));
      break;
    case 'venues': {
      title.textContent = `${payload.ticker ?? ''} short volume by venue`.trim();
      subtitle.textContent = `${payload.days.length} trading days`;
      const { chart, venues, colours } = venueChart(payload.days);
      const key = html(
        'div',
        { class: 'levels' },
        ...venues.map((v, i) =>
          html('span', { class: 'level' }, html('span', { class: 'swatch', style: `background:${colours[i] ?? ''}` }), v),
        ),
      );
      main.replaceChildren(key, chart);
      if (payload.ticker) await showRatioOf(payload.ticker);
      break;
    }
    case 'empty':
      subtitle.textContent = 'No rows in this result.';
      break;
  }
}

function ratioSummary(points: RatioPoint[]): string {
  const last = points[points.length - 1];
  const mean = points.reduce((sum, p) => sum + p.ratio, 0) / Math.max(points.length, 1);
  return last
    ? `${points.length} days to ${last.date} · latest ${percent(last.ratio * 100)} · average ${percent(mean * 100)} of volume sold short`
    : '';
}

function showScreener(rows: ScreenerRow[], by: RankBy): void {
  title.textContent = 'Short interest screener';
  subtitle.textContent = `${rows.length} tickers, ranked by ${by === 'shortFloatPct' ? 'short interest as % of float' : 'days to cover'} · click one for its short volume ratio`;
  const toggle = (label: string, value: RankBy): HTMLButtonElement => {
    const b = html('button', { type: 'button', 'data-rank-by': value, 'aria-pressed': String(value === by) }, label);
    b.addEventListener('click', () => showScreener(rows, value));
    return b;
  };
  main.replaceChildren(
    html('div', { class: 'controls' }, toggle('Rank by % of float', 'shortFloatPct'), toggle('Rank by days to cover', 'daysToCover')),
    rankedBars(ranked(rows, by), by, (ticker) => void showRatioOf(ticker)),
  );
}

async function showRatioOf(ticker: string): Promise<void> {
  say(`Loading the short volume ratio of ${ticker}…`);
  try {
    const result = await link.callServerTool(RATIO_TOOL, { ticker });
    if (result.isError) throw new Error(errorText(result));
    const payload = shortPayload(result.structuredContent, RATIO_TOOL, ticker);
    if (payload.kind !== 'ratio') throw new Error('no daily rows in the answer');
    detail.replaceChildren(
      html('h2', { 'data-detail': ticker }, `${ticker} short volume ratio`),
      html('p', { class: 'sub' }, ratioSummary(payload.points)),
      ratioChart(payload.points),
    );
    say('');
  } catch (error) {
    say(`Could not load ${ticker}: ${error instanceof Error ? error.message : String(error)}`, true);
  }
}

void link.connect().catch((error: unknown) => say(`Not connected to a host: ${String(error)}`, true));
