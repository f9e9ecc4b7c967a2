/**
 * Where the session timeline comes from: the tool's compact `view: "levels"` (one row per
 * snapshot, no strikes). Without a window it answers the newest session whole; older
 * sessions are found with a one-row `to` query each and read whole with `session_date`
 * when the person picks one. Strikes come from `view: "full"`: the newest snapshot of a
 * session (`session_date`, limit 1) or one snapshot by its time (`from` = `to`).
 */
import { isRecord, num } from '../shared/format.js';
import type { ToolResult } from '../shared/protocol.js';
import { levelsPage, snapshotPage, type Levels, type Page, type Snapshot } from './model.js';

export const TOOL = 'derived_dealer_gex_history';
/** The upstream keeps three sessions; a few more lookups cost little and stop at the first empty answer. */
const MAX_SESSIONS = 5;
/** Pages of levels rows for one session (78 snapshots fit one page; the cursor covers a trimmed answer). */
const MAX_PAGES_PER_SESSION = 6;

export interface ToolShape {
  levels: boolean;
  sessionDate: boolean;
  range: boolean;
  maxLimit: number;
}

/** What the tool accepts, from the JSON Schema of its input; undefined without one. */
export function shapeFromSchema(inputSchema: unknown): ToolShape | undefined {
  const properties = isRecord(inputSchema) && isRecord(inputSchema['properties']) ? inputSchema['properties'] : undefined;
  if (!properties) return undefined;
  const view = properties['view'];
  const values = isRecord(view) && Array.isArray(view['enum']) ? (view['enum'] as unknown[]) : [];
  const limit = properties['limit'];
  return {
    levels: values.includes('levels'),
    sessionDate: 'session_date' in properties,
    range: 'from' in properties && 'to' in properties,
    maxLimit: (isRecord(limit) ? num(limit['maximum']) : undefined) ?? 60,
  };
}

export class ToolError extends Error {}

/** What the source needs of the host link: tools/call on our server (a fake one in tests). */
export interface ToolCaller {
  callServerTool(name: string, args: Record<string, unknown>): Promise<ToolResult>;
}

function structuredOf(result: ToolResult): unknown {
  if (result.isError) {
    const text = result.content?.find((c) => c.type === 'text');
    throw new ToolError(text && 'text' in text ? text.text : 'the tool answered with an error');
  }
  return result.structuredContent;
}

/** The calendar day before an ISO date ("2026-11-02" → "2026-11-01"). */
export function dayBefore(date: string): string {
  const d = new Date(`${date}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

export class TimelineSource {
  /** Level rows of each session read whole, newest first. */
  private readonly bySession = new Map<string, Levels[]>();
  /** Every session known, newest first (read whole or not). */
  private readonly known: string[] = [];
  /** Full snapshots read so far, by time. */
  readonly snapshots = new Map<string, Snapshot>();
  /** Whether an older session than the last known one may exist. */
  private older = true;

  constructor(
    private readonly link: ToolCaller,
    private readonly ticker: string,
    private readonly shape: ToolShape | undefined,
  ) {}

  /** Newest first. */
  sessions(): string[] {
    return [...this.known];
  }

  /** The session's level rows, newest first; empty until read. */
  rows(session: string): Levels[] {
    return this.bySession.get(session) ?? [];
  }

  complete(session: string): boolean {
    return this.bySession.has(session);
  }

  keep(snapshots: Snapshot[]): void {
    for (const s of snapshots) this.snapshots.set(s.at, s);
  }

  /** The newest session whole (no window: the tool answers the newest session), then the names of older ones. */
  async loadLatest(): Promise<string | undefined> {
    const rows = await this.levels({});
    const newest = rows[0]?.session;
    if (newest === undefined) return undefined;
    this.store(rows);
    await this.discover();
    return newest;
  }

  /** One session whole, by session_date. */
  async loadSession(session: string): Promise<Levels[]> {
    if (!this.complete(session)) this.store(await this.levels({ session_date: session }));
    return this.rows(session);
  }

  /** The newest full snapshot of `session`. */
  async newestOf(session: string): Promise<Snapshot | undefined> {
    const known = [...this.snapshots.values()].filter((s) => s.session === session).sort((a, b) => (a.at < b.at ? 1 : -1))[0];
    const newestRow = this.rows(session)[0];
    if (known && (newestRow === undefined || known.at >= newestRow.at)) return known;
    return this.fetchOne({ ticker: this.ticker, view: 'full', session_date: session, limit: 1 });
  }

  /** The full snapshot taken at `at`. */
  async snapshotAt(at: string): Promise<Snapshot | undefined> {
    const known = this.snapshots.get(at);
    if (known || this.shape?.range === false) return known;
    return this.fetchOne({ ticker: this.ticker, view: 'full', from: at, to: at, limit: 1 });
  }

  /** Names of older sessions: the newest row before the oldest known session, one small call each. */
  private async discover(): Promise<void> {
    while (this.older && this.known.length < MAX_SESSIONS) {
      const oldest = this.known[this.known.length - 1];
      if (oldest === undefined) return;
      const page = levelsPage(
        structuredOf(await this.link.callServerTool(TOOL, { ticker: this.ticker, view: 'levels', to: dayBefore(oldest), limit: 1 })),
      );
      const session = page.rows[0]?.session;
      if (session === undefined || session >= oldest) this.older = false;
      else this.known.push(session);
    }
  }

  private store(rows: Levels[]): void {
    const grouped = new Map<string, Levels[]>();
    for (const row of rows) grouped.set(row.session, [...(grouped.get(row.session) ?? []), row]);
    for (const [session, list] of grouped) {
      this.bySession.set(
        session,
        list.sort((a, b) => (a.at < b.at ? 1 : -1)),
      );
      if (!this.known.includes(session)) this.known.push(session);
    }
    this.known.sort((a, b) => (a < b ? 1 : -1));
  }

  /** Every levels row of a query, following the server's cursor. */
  private async levels(window: Record<string, unknown>): Promise<Levels[]> {
    const rows: Levels[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < MAX_PAGES_PER_SESSION; page++) {
      // A cursor remembers the query: follow it with the ticker alone.
      const args: Record<string, unknown> =
        cursor === null ? { ticker: this.ticker, view: 'levels', ...window } : { ticker: this.ticker, cursor };
      const next: Page<Levels> = levelsPage(structuredOf(await this.link.callServerTool(TOOL, args)));
      rows.push(...next.rows);
      cursor = next.nextCursor;
      if (cursor === null) break;
    }
    return rows;
  }

  private async fetchOne(args: Record<string, unknown>): Promise<Snapshot | undefined> {
    const page = snapshotPage(structuredOf(await this.link.callServerTool(TOOL, args)));
    this.keep(page.rows);
    return page.rows[0];
  }
}
