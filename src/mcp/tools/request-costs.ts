/**
 * What a call spends in requests, said before it is made: in the tool descriptions and in
 * api_status. It depends on the upstream's page size (a session of dealer levels is 2
 * requests at pages of 60 snapshots and 4 at pages of 25), which the document gives where
 * the upstream takes a page size, and which an upstream that pages at its own size shows only
 * by answering: until then the text says so, and it is stated as soon as a page was read.
 */
import type { MarketDataClient } from '../../api/client.js';
import type { DatasetDefinition } from '../../catalog/index.js';
import { pageSizeMaximum, upstreamRoles } from '../../catalog/param-roles.js';
import { PAGE as DEALER_PAGE } from '../reading/dealer-read.js';

const DEALER = 'derived.dealer_gex_history';
const SCREENER = 'shorts.short_screener';
/** Snapshots of a whole session (09:35 to 16:00, every 5 minutes), and of the three the history holds. */
const SESSION_SNAPSHOTS = 78;
const HISTORY_SNAPSHOTS = 3 * SESSION_SNAPSHOTS;

const plural = (n: number): string => `${n} request${n === 1 ? '' : 's'}`;

/** Rows of one upstream page of `dataset` as this server reads it: the size it asks, or the upstream's own once seen. */
export function pageRows(client: MarketDataClient, dataset: DatasetDefinition, asked?: number): number | undefined {
  const pageSize = upstreamRoles(dataset).pageSize;
  if (pageSize !== undefined && asked !== undefined) return Math.min(asked, pageSizeMaximum(dataset, pageSize) ?? asked);
  return client.pageRowsSeen(dataset.operationId);
}

export interface DealerCosts {
  /** Rows a page holds here, when known. */
  rows: number | undefined;
  /** A whole session read for its levels or summary: the rows of the session and one past it, to know it ended. */
  session: number | undefined;
  /** The three sessions the history holds (view=sessions without a session). */
  history: number | undefined;
}

export function dealerCosts(client: MarketDataClient, datasets: readonly DatasetDefinition[]): DealerCosts | undefined {
  const dataset = datasets.find((d) => d.operationId === DEALER);
  if (!dataset) return undefined;
  const rows = pageRows(client, dataset, DEALER_PAGE);
  return {
    rows,
    session: rows === undefined ? undefined : Math.ceil((SESSION_SNAPSHOTS + 1) / rows),
    history: rows === undefined ? undefined : Math.ceil(HISTORY_SNAPSHOTS / rows),
  };
}

/** The dealer history's cost, in one sentence for its description. */
function dealerSentence(costs: DealerCosts): string {
  if (costs.rows === undefined || costs.session === undefined || costs.history === undefined)
    return 'Cost: newest snapshot 1 request, a session its pages (2 at 60 snapshots a page, 4 at 25); api_status gives this page size once a page was read.';
  return `Cost (pages of ${costs.rows} snapshots): newest snapshot 1 request, newest session's levels ${costs.session}, view=sessions ${costs.history}, older sessions more.`;
}

/** The cost of `limit` and of filters applied here over the upstream's pages, for a tool that reads them. */
function localSentence(client: MarketDataClient, dataset: DatasetDefinition): string | undefined {
  if ((dataset.localParams?.length ?? 0) === 0) return undefined;
  const rows = client.pageRowsSeen(dataset.operationId);
  return rows === undefined ? undefined : `Cost: 1 request a page of ${rows} rows (limit=100: ${plural(Math.ceil(100 / rows))}).`;
}

/** The cost sentence a dataset tool's description ends with, where a call may spend more than one request. */
export function datasetCostSentence(client: MarketDataClient, dataset: DatasetDefinition): string | undefined {
  if (dataset.operationId === DEALER) {
    const costs = dealerCosts(client, [dataset]);
    return costs ? dealerSentence(costs) : undefined;
  }
  return localSentence(client, dataset);
}

export interface RequestCosts {
  volatilityCompare: string;
  dealerCompare: string;
  sectorScreener: string;
  briefing: string;
}

/** The cost sentences of the tools over several names. */
export function requestCosts(client: MarketDataClient, datasets: readonly DatasetDefinition[]): RequestCosts {
  const dealer = dealerCosts(client, datasets);
  // The newest session's pages: fewer on a half day; an older session is read past the newer ones.
  const session =
    dealer?.session === undefined ? "the session's pages (up to 2 at pages of 60, 4 at 25)" : `up to ${plural(dealer.session)}`;
  const screener = datasets.find((d) => d.operationId === SCREENER);
  const byTickers = screener !== undefined && upstreamRoles(screener).tickers !== undefined;
  const screenerRows = screener ? client.pageRowsSeen(screener.operationId) : undefined;
  return {
    // The sector lookup is one page of the sector directory; each ticker is asked once per measure.
    volatilityCompare: 'Cost: 1 request a ticker and measure (both: 2); 1 more for a sector.',
    dealerCompare: `Cost: 1 request a ticker, ${session} with view=sessions (more for older sessions); 1 more for a sector.`,
    sectorScreener: byTickers
      ? 'Cost: 1 request + 1 per 10 names.'
      : `Cost: 1 request + the screener's pages${screenerRows ? ` of ${screenerRows} rows` : ''}, read once for every 10 names.`,
    briefing: 'Cost: 5 requests (more where a filter is applied here over pages).',
  };
}

/**
 * For api_status: what a call of each tool whose cost depends on the upstream spends, in a
 * few words; a page size seen on answers is named with its dataset.
 */
export function costsByTool(
  client: MarketDataClient,
  datasets: readonly DatasetDefinition[],
  tools: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  const dealer = dealerCosts(client, datasets);
  if (dealer)
    out['derived_dealer_gex_history'] =
      dealer.session === undefined || dealer.history === undefined
        ? "newest snapshot: 1 request; a session or view=sessions: the upstream's pages they span (page size not seen yet)"
        : `newest snapshot: 1 request; a session of levels: ${plural(dealer.session)}; view=sessions: ${plural(dealer.history)} (pages of ${dealer.rows} snapshots)`;
  const names = requestCosts(client, datasets);
  const byName: Record<string, string> = {
    volatility_compare: names.volatilityCompare,
    derived_dealer_gex_compare: names.dealerCompare,
    shorts_sector_screener: names.sectorScreener,
    ticker_briefing: names.briefing,
  };
  for (const [tool, text] of Object.entries(byName)) if (tools.includes(tool)) out[tool] = text.replace(/^Cost: /, '');
  for (const dataset of datasets) {
    const rows = client.pageRowsSeen(dataset.operationId);
    if (rows !== undefined && dataset.operationId !== DEALER && (dataset.localParams?.length ?? 0) > 0)
      out[dataset.operationId.replace(/\./g, '_')] = `1 request a page of ${rows} rows; limit and filters applied here over them`;
  }
  return out;
}

/** The same in one line, for api_status's short answer: requests a call spends, where it can be more than one. */
export function costLine(client: MarketDataClient, datasets: readonly DatasetDefinition[], tools: readonly string[]): string | undefined {
  const parts: string[] = [];
  const dealer = dealerCosts(client, datasets);
  if (dealer)
    parts.push(
      dealer.session === undefined || dealer.history === undefined
        ? 'dealer history newest 1, a session its pages (size not seen yet)'
        : `dealer history newest 1, a session ${dealer.session}, view=sessions ${dealer.history}`,
    );
  if (tools.includes('volatility_compare')) parts.push('volatility compare 1 a ticker and measure');
  if (tools.includes('derived_dealer_gex_compare'))
    parts.push(`dealer compare 1 a ticker${dealer?.session !== undefined ? ` (sessions ${dealer.session})` : ''}`);
  if (tools.includes('shorts_sector_screener')) parts.push('sector screener 1 + 1 per 10 names');
  if (tools.includes('ticker_briefing')) parts.push('briefing 5');
  return parts.length > 0 ? `Requests per call: ${parts.join('; ')}; others 1.` : undefined;
}
