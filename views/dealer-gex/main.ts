/**
 * Dealer gamma view: the snapshot the agent fetched as bars by strike, its levels with
 * their values, and the session's timeline; the person switches snapshot or session here
 * (tools/call through the host) without asking the agent again.
 */
import { html } from '../shared/dom.js';
import { clock, dollars, price, str } from '../shared/format.js';
import { HostLink, type ToolResult } from '../shared/host-link.js';
import { applyHostTheme } from '../shared/theme.js';
import { gexBars, timeline, TIMELINE_SERIES } from './charts.js';
import { levelsPage, snapshotPage, type Snapshot } from './model.js';
import { shapeFromSchema, TimelineSource } from './timeline-source.js';

const title = html('h1', {}, 'Dealer gamma exposure');
const subtitle = html('p', { class: 'sub' }, 'Waiting for the tool result…');
const legend = html('div', { class: 'levels', 'data-legend': '' });
const snapshotControls = html('div', { class: 'controls' });
const bars = html('div');
const sessionControls = html('div', { class: 'controls', 'data-sessions': '' });
const timelineBox = html('div');
const status = html('p', { class: 'status', role: 'status' });
document.body.append(
  title,
  subtitle,
  legend,
  snapshotControls,
  bars,
  html('h2', {}, 'Session timeline'),
  sessionControls,
  timelineBox,
  status,
);

let args: Record<string, unknown> = {};
let source: TimelineSource | undefined;
let shown: Snapshot | undefined;
let session: string | undefined;

const link = new HostLink(
  { name: 'market-data-mcp dealer gamma view', version: '1.0.0' },
  {
    onToolInput: (input) => (args = input),
    onToolResult: (result) => void showResult(result),
    onHostContext: applyHostTheme,
  },
);

function say(text: string, error = false): void {
  status.textContent = text;
  status.className = error ? 'status error' : 'status';
}

async function showResult(result: ToolResult): Promise<void> {
  if (result.isError) {
    const text = result.content?.find((c) => c.type === 'text');
    subtitle.textContent = text && 'text' in text ? text.text : 'The tool answered with an error.';
    return;
  }
  const snapshots = snapshotPage(result.structuredContent).rows;
  const ticker = snapshots[0]?.ticker ?? str(args['ticker']) ?? '';
  const tool = link.hostContext().toolInfo?.tool;
  source = new TimelineSource(link, ticker, tool ? shapeFromSchema(tool.inputSchema) : undefined);
  source.keep(snapshots);
  // A levels answer has no strikes: the bars show the strikes of its newest row.
  const newestLevel = levelsPage(result.structuredContent).rows[0];
  let first = snapshots[0];
  if (!first && newestLevel && ticker) first = await source.snapshotAt(newestLevel.at).catch(() => undefined);
  if (!first) {
    subtitle.textContent = 'No snapshot in this result.';
    return;
  }
  showSnapshot(first);
  await loadLatest();
}

function showSnapshot(snapshot: Snapshot): void {
  shown = snapshot;
  title.textContent = `${snapshot.ticker ?? ''} dealer gamma exposure`.trim();
  subtitle.textContent = `Snapshot ${snapshot.at} (${clock(snapshot.at)} ET, session ${snapshot.session}${snapshot.state ? `, ${snapshot.state}` : ''}) · ${snapshot.strikes.length} strikes${snapshot.totalGex !== undefined ? ` · total ${dollars(snapshot.totalGex)}` : ''}`;
  const items: [string, string, number | undefined, string][] = [
    ['spot', 'Spot', snapshot.spot, 'var(--spot)'],
    ['flip', 'Gamma flip', snapshot.flip, 'var(--flip)'],
    ['king', 'King strike', snapshot.king, 'var(--king)'],
    ['call-wall', 'Call wall', snapshot.callWall, 'var(--pos)'],
    ['put-wall', 'Put wall', snapshot.putWall, 'var(--neg)'],
  ];
  legend.replaceChildren(
    ...items
      .filter(([, , value]) => value !== undefined)
      .map(([key, label, value, colour]) =>
        html(
          'span',
          { class: 'level', 'data-level': key },
          html('span', { class: 'swatch', style: `background:${colour}` }),
          `${label} `,
          html('b', {}, price(value ?? 0)),
        ),
      ),
  );
  bars.replaceChildren(gexBars(snapshot));
  renderSnapshotControls();
  if (session === snapshot.session) renderTimeline();
}

/** Previous / next snapshot along the shown session's timeline (levels rows), fetched by time. */
function renderSnapshotControls(): void {
  const times = (shown && source ? source.rows(shown.session) : []).map((r) => r.at);
  const index = times.findIndex((at) => at === shown?.at);
  const button = (label: string, target: string | undefined, key: string): HTMLButtonElement => {
    const b = html('button', { type: 'button', 'data-step': key }, label);
    b.disabled = target === undefined;
    b.addEventListener('click', () => target !== undefined && void pickSnapshot(target));
    return b;
  };
  snapshotControls.replaceChildren(
    button('◀ Earlier snapshot', index >= 0 ? times[index + 1] : undefined, 'earlier'),
    button('Later snapshot ▶', index > 0 ? times[index - 1] : undefined, 'later'),
    html('span', { class: 'sub' }, 'or click a point of the timeline'),
  );
}

async function loadLatest(): Promise<void> {
  if (!source) return;
  say('Loading the session timeline…');
  try {
    const newest = await source.loadLatest();
    // The agent may have asked for an older session: its timeline is the one to show.
    session = shown?.session ?? newest;
    if (session !== undefined) await source.loadSession(session);
    renderSessions();
    renderTimeline();
    renderSnapshotControls();
    say('');
  } catch (error) {
    say(`Could not load the timeline: ${error instanceof Error ? error.message : String(error)}`, true);
  }
}

function renderSessions(): void {
  if (!source) return;
  sessionControls.replaceChildren(
    ...source.sessions().map((s) => {
      const b = html('button', { type: 'button', 'data-session': s, 'aria-pressed': String(s === session) }, s);
      b.addEventListener('click', () => void pickSession(s));
      return b;
    }),
  );
}

async function pickSession(picked: string): Promise<void> {
  if (!source) return;
  session = picked;
  try {
    if (!source.complete(picked)) {
      say(`Loading session ${picked}…`);
      await source.loadSession(picked);
    }
    renderSessions();
    renderTimeline();
    say('');
    if (shown?.session === picked) return;
    const newest = await source.newestOf(picked);
    if (newest) showSnapshot(newest);
    else say(`Session ${picked}: no snapshot with strikes in the answer.`);
  } catch (error) {
    say(`Could not load session ${picked}: ${error instanceof Error ? error.message : String(error)}`, true);
  }
}

async function pickSnapshot(at: string): Promise<void> {
  if (!source) return;
  try {
    const snapshot = await source.snapshotAt(at);
    if (snapshot) showSnapshot(snapshot);
    else say(`The strikes of ${clock(at)} are not available from this tool.`);
  } catch (error) {
    say(`Could not load the snapshot of ${clock(at)}: ${error instanceof Error ? error.message : String(error)}`, true);
  }
}

function renderTimeline(): void {
  if (!source || session === undefined) return;
  const rows = source.rows(session);
  const key = html(
    'div',
    { class: 'levels' },
    ...TIMELINE_SERIES.map((s) =>
      html('span', { class: 'level' }, html('span', { class: 'swatch', style: `background:${s.colour}` }), s.label),
    ),
    html('span', { class: 'level', 'data-timeline-count': String(rows.length) }, `${session}: ${rows.length} snapshots`),
  );
  timelineBox.replaceChildren(
    key,
    timeline(rows, shown?.at, (at) => void pickSnapshot(at)),
  );
}

void link.connect().catch((error: unknown) => say(`Not connected to a host: ${String(error)}`, true));
