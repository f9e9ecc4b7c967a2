/**
 * Values of a parameter in the forms upstreams write it, our own first: where an upstream's
 * document replaces a curated parameter's pattern, the example its reviewed words give may no
 * longer pass (EURUSD beside `^[A-Z]{3}/[A-Z]{3}$`), and the first of these that does is
 * shown instead (src/registry/openapi/stated-examples.ts). By MCP-side parameter name.
 */
import { SECTORS } from './params.js';

export const PARAM_SAMPLES: Readonly<Record<string, readonly string[]>> = {
  ticker: ['SPY', 'AAPL', 'BRK.B', 'spy'],
  tickers: ['SPY,QQQ', 'SPY,QQQ,IWM', 'SPY QQQ', 'spy,qqq'],
  with_tickers: ['MSFT,NVDA', 'MSFT NVDA', 'msft,nvda'],
  pair: ['EURUSD', 'EUR/USD', 'EUR_USD', 'EUR-USD', 'EUR.USD', 'C:EURUSD', 'eurusd', 'eur/usd'],
  contract: ['SPY261218C00600000', 'O:SPY261218C00600000', 'SPY 261218C00600000', 'SPY261218C600'],
  sector: SECTORS,
};

/** The first sample of `name` that `accepts` takes, if any. */
export function acceptedSample(name: string, accepts: (value: string) => boolean): string | undefined {
  return Object.hasOwn(PARAM_SAMPLES, name) ? PARAM_SAMPLES[name]?.find(accepts) : undefined;
}
