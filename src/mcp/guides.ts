/** Resources (the API's own descriptions) and prompts that show an agent a good path. */
import type { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { MarketDataClient } from '../api/client.js';
import { buildOpenApiDocument, DEALER_TICKER_PATTERN, GENERAL_TICKER_PATTERN } from '../catalog/index.js';
import type { DatasetRegistry } from '../registry/dataset-registry.js';
import { callContextOf } from './call-context.js';

export function registerResources(server: McpServer, client: MarketDataClient, registry: DatasetRegistry): void {
  server.registerResource(
    'openapi',
    'market-data://openapi.json',
    {
      title: 'Market Data Read API: OpenAPI document',
      description: "The upstream's /v1/openapi.json (the built-in catalog's when the upstream is unreachable).",
      mimeType: 'application/json',
    },
    (uri) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'application/json',
          text: JSON.stringify(registry.document() ?? buildOpenApiDocument(registry.datasets())),
        },
      ],
    }),
  );
  server.registerResource(
    'discover',
    'market-data://discover',
    {
      title: 'Market Data Read API: discover',
      description: "The key's access scope, datasets with coverage, and quota (free).",
      mimeType: 'application/json',
    },
    async (uri, ctx) => {
      // Over --http the reader's own call: its turn among the account's users, and it stops when they hang up.
      const result = await client.meta('/v1/discover', { deadlineMs: 10_000, call: callContextOf(ctx, 10_000) });
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(result.data) }] };
    },
  );
}

/**
 * Prompt arguments are checked by the tools' own patterns: a prompt's text is read by the
 * model as the user's, so nothing but a ticker or a number is ever written into it, and a
 * bad argument is refused (an MCP invalid-params error) rather than passed on.
 */
const promptTicker = z
  .string()
  .max(12)
  .regex(GENERAL_TICKER_PATTERN, 'Ticker in upper case, dotted class suffix allowed (e.g. SPY, BRK.B).')
  .describe('Upper-case ticker, e.g. SPY or BRK.B');
const percent = z
  .string()
  .regex(/^\d{1,3}(\.\d{1,2})?$/, 'A percent of float from 0 to 100, e.g. 10 or 12.5.')
  .refine((value) => Number(value) <= 100, 'A percent of float from 0 to 100, e.g. 10 or 12.5.');

export function registerPrompts(server: McpServer): void {
  server.registerPrompt(
    'dealer_positioning_briefing',
    {
      title: 'Dealer positioning briefing',
      description: 'Brief one ticker: dealer gamma levels, volatility skew and short activity.',
      argsSchema: z.object({ ticker: promptTicker }),
    },
    ({ ticker }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text: [
              `Brief me on dealer positioning in ${ticker}.`,
              // The dealer history takes 1 to 5 letters only (the spec's pattern): a class share is briefed without it.
              DEALER_TICKER_PATTERN.test(ticker)
                ? `1. Call derived_dealer_gex_history with ticker=${ticker} (the newest snapshot): report spot, king strike, gamma flip, call wall and put wall, and whether spot is above the flip (dealers long gamma, dampening) or below it (short gamma, amplifying). For the last three sessions, call it again with view=sessions.`
                : `1. The dealer gamma history covers tickers of 1 to 5 letters only, not ${ticker}: say so in one line and skip it.`,
              `2. Call volatility_risk_reversal_skew for ${ticker} to say whether puts or calls are bid.`,
              `3. Call shorts_volume_and_ratio for ${ticker} for the recent short ratio.`,
              'Keep it to one short paragraph per step and a one-line conclusion. If a tool returns an error, follow its guidance instead of guessing numbers.',
            ].join('\n'),
          },
        },
      ],
    }),
  );
  server.registerPrompt(
    'short_squeeze_screen',
    {
      title: 'Short-squeeze screen',
      description: 'Find heavily shorted names and check the best candidates.',
      argsSchema: z.object({
        min_short_float_pct: percent.describe('Minimum short interest as percent of float, 0 to 100 (default 10)').optional(),
      }),
    },
    ({ min_short_float_pct }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text: [
              `Screen for short-squeeze candidates.`,
              `1. Call shorts_short_screener with min_short_float_pct=${min_short_float_pct ?? '10'}, limit=10 and fields=["ticker","short_float_pct","days_to_cover"]. If fewer than three names come back, call it once more without min_short_float_pct.`,
              '2. For the top three by days to cover, call shorts_volume_and_ratio to see whether short volume is rising.',
              '3. Rank them with a one-line reason each. Every successful call costs one unit of quota: do not call more than needed.',
            ].join('\n'),
          },
        },
      ],
    }),
  );
}
