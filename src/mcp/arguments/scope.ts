/**
 * SCOPE_INSUFFICIENT, once known, is answered here: a dataset that discover says the key
 * cannot call is not sent; and the refusal names tools of other toolsets the key can call
 * that answer a related question.
 */
import type { CallContext } from '../../api/call-context.js';
import type { MarketDataClient } from '../../api/client.js';
import { ApiError, apiError } from '../../api/errors.js';
import { knownOutOfScope, recentDiscover } from './discover-memory.js';

/** Related tools in other toolsets (a scope is per toolset), by operation id. */
const ALTERNATIVES: Readonly<Record<string, readonly string[]>> = {
  'flow.ticker_overview': ['market.oi_change', 'volatility.anomaly'],
  'options.chain_history': ['market.oi_change'],
  'derived.dealer_gex_history': ['market.oi_change', 'volatility.risk_reversal_skew'],
  'shorts.short_screener': ['darkpool.by_ticker', 'stocks.lit_trades_recent'],
  'shorts.volume_and_ratio': ['darkpool.by_ticker', 'stocks.lit_trades_recent'],
  'shorts.volumes_by_exchange': ['darkpool.by_ticker'],
  'darkpool.by_ticker': ['stocks.lit_trades_recent', 'shorts.volume_and_ratio'],
  'volatility.risk_reversal_skew': ['market.oi_change'],
  'volatility.anomaly': ['market.oi_change'],
  'volatility.character_top': ['market.oi_change'],
  'congress.recent_trades': ['insider.buy_sells_by_ticker'],
  'insider.buy_sells_by_ticker': ['institutions.ownership_by_ticker', 'congress.recent_trades'],
  'institutions.ownership_by_ticker': ['insider.buy_sells_by_ticker'],
  'fundamentals.fundamental_breakdown': ['stocks.dividends'],
};

const toolName = (operationId: string): string => operationId.replace(/\./g, '_');

/** Alternatives the key is not known to lack. */
function alternativesFor(client: MarketDataClient, operationId: string): string[] {
  return (ALTERNATIVES[operationId] ?? []).filter((id) => !knownOutOfScope(client, id)).map(toolName);
}

function insteadOf(client: MarketDataClient, operationId: string): string {
  const others = alternativesFor(client, operationId);
  return others.length > 0 ? ` Instead, try ${others.join(' or ')}.` : '';
}

function scopeHint(client: MarketDataClient, operationId: string, scope: string | undefined): string {
  return `This key lacks ${scope ?? 'the scope'} for ${toolName(operationId)}; api_status lists what it can use.${insteadOf(client, operationId)}`;
}

/** The refusal, without a request, when the key is known to lack the dataset's scope. */
export function knownScopeRefusal(client: MarketDataClient, operationId: string): ApiError | undefined {
  const known = knownOutOfScope(client, operationId);
  if (!known) return undefined;
  return apiError('SCOPE_INSUFFICIENT', {
    message: 'The API key lacks the scope this dataset needs (discover says so); not sent.',
    hint: scopeHint(client, operationId, known.scope),
    local: true,
  });
}

/**
 * An upstream SCOPE_INSUFFICIENT: discover is read (free, at most once a minute), so that
 * the next call of a dataset it confirms out of scope is refused here; the upstream's hint
 * is kept and alternatives the key holds are added.
 */
export async function withScopeAlternatives(
  client: MarketDataClient,
  operationId: string,
  error: unknown,
  call: CallContext,
): Promise<unknown> {
  if (!(error instanceof ApiError) || error.code !== 'SCOPE_INSUFFICIENT') return error;
  await recentDiscover(client, { call });
  return error.with({ hint: error.hint ? `${error.hint}${insteadOf(client, operationId)}` : scopeHint(client, operationId, undefined) });
}
