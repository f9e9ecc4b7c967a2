/**
 * Where the session timeline comes from. With the tool's compact `view: "levels"` (one
 * row per snapshot, no strikes) a few calls read every session; a tool without it is read
 * as full snapshots, a few per page, only as far back as the session asked for. Which one
 * the tool offers is read from its input schema when the host passes it (hostContext
 * toolInfo), or found by trying `levels` once.
 */
import { isRecord, num } from '../shared/format.js';
import type { ToolResult } from '../shared/protocol.js';
import { levelsPage, snapshotPage, type Levels, type Page, type Snapshot } from './model.js';

export const TOOL = 'derived_dealer_gex_history';
/** Full snapshots per page: 25 strikes each, so a page stays well inside the result budget. */
const FULL_PAGE = 8;
const MAX_PAGES_PER_LOAD = 12;

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

export class TimelineSource {
  /** Level rows of every snapshot read so far, newest first. */
  readonly rows: Levels[] = [];
  /** Full snapshots read so far (the first result's, and the fallback's pages), by time. */
  readonly snapshots = new Map<string, Snapshot>();
  private cursor: string | null | undefined = undefined;

  constructor(
    private readonly link: ToolCaller,
    private readonly ticker: string,
    private shape: ToolShape | undefined,
  ) {}

  get exhausted(): boolean {
    return this.cursor === null;
  }

  get mode(): 'levels' | 'full' | 'unknown' {
    if (!this.shape) return 'unknown';
    return this.shape.levels ? 'levels' : 'full';
  }

  sessions(): string[] {
    return [...new Set(this.rows.map((r) => r.session))];
  }

  keep(snapshots: Snapshot[]): void {
    for (const s of snapshots) this.snapshots.set(s.at, s);
  }

  /** Whether every row of `session` has been read (a row of an older one came after it). */
  complete(session: string): boolean {
    const oldest = this.rows[this.rows.length - 1]?.session;
    return this.exhausted || (oldest !== undefined && oldest < session);
  }

  /**
   * Reads pages until `session` is complete. Without a session: the whole history with
   * the compact view (a few calls), or the newest session only with full snapshots.
   */
  async loadThrough(session: string | undefined): Promise<void> {
    for (let page = 0; page < MAX_PAGES_PER_LOAD && !this.exhausted; page++) {
      if (session !== undefined && this.complete(session)) return;
      if (session === undefined && this.mode === 'full' && this.sessions().length > 1) return;
      const next = await this.nextPage();
      this.rows.push(...next.rows);
      this.cursor = next.nextCursor;
    }
  }

  /** The newest full snapshot of `session`, when the tool can be asked for one. */
  async newestOf(session: string): Promise<Snapshot | undefined> {
    const known = [...this.snapshots.values()].filter((s) => s.session === session).sort((a, b) => (a.at < b.at ? 1 : -1))[0];
    if (known || !this.shape?.sessionDate) return known;
    return this.fetchOne({ ticker: this.ticker, view: 'full', session_date: session, limit: 1 });
  }

  /** The full snapshot taken at `at`, when the tool takes a time range. */
  async snapshotAt(at: string): Promise<Snapshot | undefined> {
    const known = this.snapshots.get(at);
    if (known || !this.shape?.range) return known;
    return this.fetchOne({ ticker: this.ticker, view: 'full', from: at, to: at, limit: 1 });
  }

  private async fetchOne(args: Record<string, unknown>): Promise<Snapshot | undefined> {
    const page = snapshotPage(structuredOf(await this.link.callServerTool(TOOL, args)));
    this.keep(page.rows);
    return page.rows[0];
  }

  private async nextPage(): Promise<Page<Levels>> {
    if (this.shape === undefined) {
      // No schema from the host: try the compact view once; a tool without it refuses
      // the unknown parameter locally (no upstream call, no quota).
      try {
        const page = await this.levelsCall();
        this.shape = { levels: true, sessionDate: true, range: true, maxLimit: 60 };
        return page;
      } catch (error) {
        if (!(error instanceof ToolError)) throw error;
        this.shape = { levels: false, sessionDate: false, range: false, maxLimit: 60 };
      }
    }
    if (this.shape.levels) return this.levelsCall();
    const structured = structuredOf(await this.link.callServerTool(TOOL, this.withCursor({ ticker: this.ticker, limit: FULL_PAGE })));
    this.keep(snapshotPage(structured).rows);
    return levelsPage(structured);
  }

  private async levelsCall(): Promise<Page<Levels>> {
    const limit = Math.min(this.shape?.maxLimit ?? 60, 100);
    return levelsPage(structuredOf(await this.link.callServerTool(TOOL, this.withCursor({ ticker: this.ticker, view: 'levels', limit }))));
  }

  private withCursor(args: Record<string, unknown>): Record<string, unknown> {
    return typeof this.cursor === 'string' ? { ...args, cursor: this.cursor } : args;
  }
}
