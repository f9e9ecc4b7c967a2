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
import { snapshotPage, type Snapshot } from './model.js';
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
  const first = snapshots[0];
  if (!first) {
    subtitle.textContent = 'No snapshot in this result.';
    return;
  }
  const ticker = first.ticker ?? str(args['ticker']) ?? '';
  const tool = link.hostContext().toolInfo?.tool;
  source = new TimelineSource(link, ticker, tool ? shapeFromSchema(tool.inputSchema) : undefined);
  source.keep(snapshots);
  showSnapshot(first);
  await loadSession(undefined);
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

/** Previous / next among the snapshots with strikes already at hand, newest first. */
function renderSnapshotControls(): void {
  const known = [...(source?.snapshots.values() ?? [])].sort((a, b) => (a.at < b.at ? 1 : -1));
  const index = known.findIndex((s) => s.at === shown?.at);
  const button = (label: string, target: Snapshot | undefined, key: string): HTMLButtonElement => {
    const b = html('button', { type: 'button', 'data-step': key }, label);
    b.disabled = target === undefined;
    b.addEventListener('click', () => target && showSnapshot(target));
    return b;
  };
  snapshotControls.replaceChildren(
    button('◀ Earlier snapshot', known[index + 1], 'earlier'),
    button('Later snapshot ▶', index > 0 ? known[index - 1] : undefined, 'later'),
    html('span', { class: 'sub' }, 'or click a point of the timeline'),
  );
}

async function loadSession(wanted: string | undefined): Promise<void> {
  if (!source) return;
  say('Loading the session timeline…');
  try {
    await source.loadThrough(wanted);
    session = wanted ?? shown?.session ?? source.sessions()[0];
    renderSessions();
    renderTimeline();
    say(source.mode === 'levels' ? 'Timeline from the compact levels view.' : 'Timeline from full snapshots.');
  } catch (error) {
    say(`Could not load the timeline: ${error instanceof Error ? error.message : String(error)}`, true);
  }
}

function renderSessions(): void {
  if (!source) return;
  const buttons = source.sessions().map((s) => {
    const b = html('button', { type: 'button', 'data-session': s, 'aria-pressed': String(s === session) }, s);
    b.addEventListener('click', () => void pickSession(s));
    return b;
  });
  if (!source.exhausted && source.mode !== 'levels') {
    const more = html('button', { type: 'button', 'data-session': 'earlier' }, 'Earlier session…');
    more.addEventListener('click', () => void loadEarlier());
    buttons.push(more);
  }
  sessionControls.replaceChildren(...buttons);
}

/** With full snapshots only: read back to the start of the next older session, then show it. */
async function loadEarlier(): Promise<void> {
  if (!source) return;
  const oldest = source.sessions().at(-1);
  if (oldest !== undefined) await source.loadThrough(oldest);
  const older = source.sessions().find((s) => oldest !== undefined && s < oldest);
  if (older) await pickSession(older);
  else renderSessions();
}

async function pickSession(picked: string): Promise<void> {
  if (!source) return;
  session = picked;
  try {
    if (!source.complete(picked)) {
      say(`Loading session ${picked}…`);
      await source.loadThrough(picked);
    }
    renderSessions();
    renderTimeline();
    say('');
    if (shown?.session === picked) return;
    const newest = await source.newestOf(picked);
    if (newest) showSnapshot(newest);
    else say(`Session ${picked}: the bars stay on ${shown?.at ?? 'the first snapshot'} (this tool cannot fetch one snapshot by session).`);
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
  const rows = source.rows.filter((r) => r.session === session);
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
