/**
 * Prompts that show an agent a good path: each names the calls to make, with their
 * arguments, for a question traders ask.
 */
import type { GetPromptResult, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { DEALER_TICKER_PATTERN, GENERAL_TICKER_PATTERN, SECTORS, TICKER_LIST } from '../catalog/index.js';

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
const promptTickers = z
  .string()
  .max(120)
  .regex(TICKER_LIST, 'Up to 10 upper-case tickers, comma-separated (e.g. SPY,QQQ,IWM).')
  .describe('Up to 10 upper-case tickers, comma-separated, e.g. SPY,QQQ,IWM');
const promptSector = z.enum(SECTORS).describe(`One of: ${SECTORS.join(', ')}`);
const percent = z
  .string()
  .regex(/^\d{1,3}(\.\d{1,2})?$/, 'A percent of float from 0 to 100, e.g. 10 or 12.5.')
  .refine((value) => Number(value) <= 100, 'A percent of float from 0 to 100, e.g. 10 or 12.5.');

/** One prompt: the arguments it takes and the steps the model reads as the user's, each naming the call to make. */
interface PromptDefinition<Args extends z.ZodObject> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly args: Args;
  readonly steps: (args: z.infer<Args>) => string[];
}

/** A prompt ready to register: its argument type closed over, so prompts of different arguments share one list. */
type Prompt = (server: McpServer) => void;

function prompt<Args extends z.ZodObject>(definition: PromptDefinition<Args>): Prompt {
  const { name, title, description, args, steps } = definition;
  const argsSchema: z.ZodObject = args;
  // The SDK has checked the arguments against this schema already; parsing them again gives
  // back their type, which its callback's conditional type loses over a generic schema.
  return (server) => server.registerPrompt(name, { title, description, argsSchema }, (given) => say(steps(args.parse(given))));
}

/** The text of a prompt, as the user's message. */
function say(lines: string[]): GetPromptResult {
  return { messages: [{ role: 'user', content: { type: 'text', text: lines.join('\n') } }] };
}

const PROMPTS: readonly Prompt[] = [
  prompt({
    name: 'dealer_positioning_briefing',
    title: 'Dealer positioning briefing',
    description: 'Brief one ticker: dealer gamma levels, volatility skew and short activity.',
    args: z.object({ ticker: promptTicker }),
    steps: ({ ticker }) => [
      `Brief me on dealer positioning in ${ticker}.`,
      // The dealer history takes 1 to 5 letters only (the spec's pattern): a class share is briefed without it.
      DEALER_TICKER_PATTERN.test(ticker)
        ? `1. Call derived_dealer_gex_history with ticker=${ticker} (the newest snapshot): report spot, king strike, gamma flip, call wall and put wall, and whether spot is above the flip (dealers long gamma, dampening) or below it (short gamma, amplifying). For the last three sessions, call it again with view=sessions.`
        : `1. The dealer gamma history covers tickers of 1 to 5 letters only, not ${ticker}: say so in one line and skip it.`,
      `2. Call volatility_risk_reversal_skew for ${ticker} to say whether puts or calls are bid.`,
      `3. Call shorts_volume_and_ratio for ${ticker} for the recent short ratio.`,
      'Keep it to one short paragraph per step and a one-line conclusion. If a tool returns an error, follow its guidance instead of guessing numbers.',
    ],
  }),
  prompt({
    name: 'short_squeeze_screen',
    title: 'Short-squeeze screen',
    description: 'Find heavily shorted names and check the best candidates.',
    args: z.object({
      min_short_float_pct: percent.describe('Minimum short interest as percent of float, 0 to 100 (default 10)').optional(),
    }),
    steps: ({ min_short_float_pct }) => [
      `Screen for short-squeeze candidates.`,
      `1. Call shorts_short_screener with min_short_float_pct=${min_short_float_pct ?? '10'}, limit=10 and fields=["ticker","short_float_pct","days_to_cover"].`,
      `2. For the top name by days to cover, call ticker_briefing with {"ticker":"<that name>"}: short-volume trend, open-interest change, dark-pool share and IV rank in one call.`,
      '3. Rank the names with a one-line reason each. Every request costs one unit of quota: ask for nothing more than needed.',
    ],
  }),
  prompt({
    name: 'gamma_briefing',
    title: 'Dealer gamma of several names',
    description: 'Which names are in negative gamma, how far from the flip, and since when: one call, two at most.',
    args: z.object({ tickers: promptTickers.optional(), sector: promptSector.optional() }),
    steps: ({ tickers, sector }) => [
      `Brief me on dealer gamma across ${tickers ?? `the largest ${sector ?? 'Technology'} names`}.`,
      `1. Call derived_dealer_gex_compare with ${JSON.stringify(tickers ? { tickers } : { sector: sector ?? 'Technology' })}: which names are in negative gamma (spot below the flip: moves amplified) and how far spot is from the flip.`,
      '2. Only if a name sits within 0.5 % of its flip, call derived_dealer_gex_compare again with the negative-gamma names and {"view":"sessions"} to say since when the regime holds.',
      'Answer with one line per name, negative gamma first. Names listed in failed: say why in a word; do not retry them.',
    ],
  }),
  prompt({
    name: 'sector_short_screen',
    title: 'Most shorted names of a sector',
    description: "A sector's most shorted companies, and a squeeze check of the top one: two calls.",
    args: z.object({ sector: promptSector }),
    steps: ({ sector }) => [
      `Which ${sector} names are most shorted, and is any of them set up for a squeeze?`,
      `1. Call shorts_sector_screener with ${JSON.stringify({ sector, limit: 10 })}.`,
      '2. Call ticker_briefing with {"ticker":"<the name with the most days to cover>"}: is short volume rising, are calls being added, is IV cheap or rich for it?',
      'Answer with the ranking (short % of float, days to cover) and a two-line verdict on the top name.',
    ],
  }),
  prompt({
    name: 'squeeze_check',
    title: 'Single-name squeeze check',
    description: "One name's short interest, short-volume trend, open-interest change, dark-pool share and IV rank: one call.",
    args: z.object({ ticker: promptTicker }),
    steps: ({ ticker }) => [
      `Is ${ticker} set up for a short squeeze?`,
      `1. Call ticker_briefing with ${JSON.stringify({ ticker })}.`,
      'Read it as a trader: a high short % of float with many days to cover, a rising short-volume ratio, calls added faster than puts, a large dark-pool share and a low IV rank point to a squeeze setup; say which of these hold, with the numbers, then a one-line verdict. A part listed in failed: say it is missing; do not guess it.',
    ],
  }),
  prompt({
    name: 'event_volatility_check',
    title: 'Volatility check before an event',
    description:
      "Before earnings or a macro event: is one name's implied volatility rich, is skew bid, and how are dealers positioned: two calls.",
    args: z.object({ ticker: promptTicker }),
    steps: ({ ticker }) => [
      `${ticker} has an event coming: is its volatility priced rich or cheap, and how will dealers hedge the move?`,
      `1. Call volatility_compare with ${JSON.stringify({ tickers: ticker, measure: 'both' })}: 30-day IV, its 1-year percentile, anomaly score, the 25-delta risk reversal and its 5-day change (negative: puts bid).`,
      DEALER_TICKER_PATTERN.test(ticker)
        ? `2. Call derived_dealer_gex_history with ${JSON.stringify({ ticker })}: spot against the gamma flip (below it, dealers amplify the move), king strike and walls.`
        : `2. The dealer gamma history covers tickers of 1 to 5 letters only, not ${ticker}: say so and skip it.`,
      'Answer in three lines: IV rich or cheap, skew, dealer regime and the levels to watch.',
    ],
  }),
];

export function registerPrompts(server: McpServer): void {
  for (const register of PROMPTS) register(server);
}
