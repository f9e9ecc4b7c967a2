/**
 * The reference market: the symbols the simulator covers and the facts about each that a
 * trader already knows (what it is, its sector, roughly where it trades, how many shares
 * float, whether it pays a dividend, how volatile it is). Every dataset derives from this
 * table, so two tools asked about the same symbol agree. Levels are rounded late-2025
 * figures: plausible, not quotes.
 *
 * To add a symbol, add one line below (README, "The simulator"): every dataset picks it up.
 */
import type { EtDate } from '../catalog/market-calendar.js';
import { SECTORS } from '../catalog/params.js';

export type SymbolKind = 'stock' | 'etf' | 'index';

// The spec's sector list, once: the catalog's enum.
export { SECTORS };
export type Sector = (typeof SECTORS)[number];

/** Common drivers beyond the market and the sector, for the correlation factor model. */
/** `small`: the size factor small caps share, which keeps the Russell 2000 further from the S&P 500 than the Nasdaq-100 is. */
export type Style = 'rates' | 'gold' | 'crypto' | 'meme' | 'growth' | 'small';

export type DividendFrequency = 'monthly' | 'quarterly' | 'semiannual' | 'annual';

export interface Dividend {
  /** Current annual payout per share. */
  readonly annualUsd: number;
  readonly frequency: DividendFrequency;
  /** First ex-date of the current run of payments: AAPL resumed in 2012, META and GOOGL began in 2024. */
  readonly since?: EtDate;
}

export interface ReferenceSymbol {
  readonly ticker: string;
  readonly name: string;
  readonly kind: SymbolKind;
  /** The sector of a company or a sector ETF; null for broad ETFs and indices. */
  readonly sector: Sector | null;
  readonly exchange: string;
  /** Price level around which the simulated price moves. */
  readonly price: number;
  /** Shares outstanding and free float, millions (0 for indices). */
  readonly sharesM: number;
  readonly floatM: number;
  /** Null for non-payers (BRK.B, TSLA, AMZN...). */
  readonly dividend: Dividend | null;
  /** 30-day at-the-money implied volatility level, annualised. */
  readonly iv: number;
  readonly beta: number;
  /** Short interest as a percent of float, typical level (ETFs: creations make it meaningless). */
  readonly shortPct: number;
  /** Average daily share volume, millions. */
  readonly advM: number;
  /** Annual revenue (billions) and net margin; companies only. */
  readonly revenueB?: number;
  readonly margin?: number;
  /** Revenue segments with their share of revenue, largest first; companies only. */
  readonly segments?: readonly (readonly [string, number])[];
  readonly style?: Style;
  /** Options list every session (SPY, QQQ, IWM, indices), so a 0DTE chain exists daily. */
  readonly dailyExpiries?: boolean;
}

const q = (annualUsd: number, since?: EtDate): Dividend => ({ annualUsd, frequency: 'quarterly', ...(since ? { since } : {}) });
const m = (annualUsd: number): Dividend => ({ annualUsd, frequency: 'monthly' });

type Row = Omit<ReferenceSymbol, 'kind'>;
const stock = (row: Row): ReferenceSymbol => ({ ...row, kind: 'stock' });
const etf = (row: Row): ReferenceSymbol => ({ ...row, kind: 'etf' });
const index = (row: Omit<Row, 'sharesM' | 'floatM' | 'dividend' | 'shortPct' | 'advM'>): ReferenceSymbol => ({
  ...row,
  kind: 'index',
  sharesM: 0,
  floatM: 0,
  dividend: null,
  shortPct: 0,
  advM: 0,
});

// prettier-ignore
export const REFERENCE: readonly ReferenceSymbol[] = [
  // Broad and sector ETFs
  etf({ ticker: 'SPY', name: 'SPDR S&P 500 ETF Trust', sector: null, exchange: 'NYSE Arca', price: 668, sharesM: 1010, floatM: 1010, dividend: q(7.1), iv: 0.15, beta: 1, shortPct: 2.1, advM: 68, dailyExpiries: true }),
  etf({ ticker: 'QQQ', name: 'Invesco QQQ Trust', sector: null, exchange: 'NASDAQ', price: 603, sharesM: 640, floatM: 640, dividend: q(3.1), iv: 0.19, beta: 1.15, shortPct: 2.8, advM: 45, style: 'growth', dailyExpiries: true }),
  etf({ ticker: 'IWM', name: 'iShares Russell 2000 ETF', sector: null, exchange: 'NYSE Arca', price: 241, sharesM: 300, floatM: 300, dividend: q(2.6), iv: 0.22, beta: 1.05, shortPct: 9.5, advM: 32, dailyExpiries: true }),
  etf({ ticker: 'DIA', name: 'SPDR Dow Jones Industrial Average ETF', sector: null, exchange: 'NYSE Arca', price: 472, sharesM: 67, floatM: 67, dividend: m(7.2), iv: 0.14, beta: 0.9, shortPct: 1.5, advM: 3.5 }),
  etf({ ticker: 'TLT', name: 'iShares 20+ Year Treasury Bond ETF', sector: null, exchange: 'NASDAQ', price: 90, sharesM: 560, floatM: 560, dividend: m(3.9), iv: 0.14, beta: -0.15, shortPct: 6, advM: 38, style: 'rates' }),
  etf({ ticker: 'GLD', name: 'SPDR Gold Shares', sector: null, exchange: 'NYSE Arca', price: 376, sharesM: 330, floatM: 330, dividend: null, iv: 0.2, beta: 0.1, shortPct: 2.5, advM: 11, style: 'gold' }),
  etf({ ticker: 'HYG', name: 'iShares iBoxx High Yield Corporate Bond ETF', sector: null, exchange: 'NYSE Arca', price: 80.6, sharesM: 210, floatM: 210, dividend: m(4.6), iv: 0.07, beta: 0.3, shortPct: 12, advM: 35 }),
  etf({ ticker: 'EEM', name: 'iShares MSCI Emerging Markets ETF', sector: null, exchange: 'NYSE Arca', price: 53, sharesM: 420, floatM: 420, dividend: { annualUsd: 1.2, frequency: 'semiannual' }, iv: 0.19, beta: 0.85, shortPct: 4, advM: 30 }),
  etf({ ticker: 'ARKK', name: 'ARK Innovation ETF', sector: null, exchange: 'NYSE Arca', price: 76, sharesM: 95, floatM: 95, dividend: null, iv: 0.45, beta: 1.8, shortPct: 8, advM: 9, style: 'growth' }),
  etf({ ticker: 'XLF', name: 'Financial Select Sector SPDR Fund', sector: 'Financial Services', exchange: 'NYSE Arca', price: 52.5, sharesM: 1000, floatM: 1000, dividend: q(0.75), iv: 0.18, beta: 1.05, shortPct: 3, advM: 40 }),
  etf({ ticker: 'XLE', name: 'Energy Select Sector SPDR Fund', sector: 'Energy', exchange: 'NYSE Arca', price: 89, sharesM: 330, floatM: 330, dividend: q(3.2), iv: 0.24, beta: 0.8, shortPct: 4, advM: 16 }),
  etf({ ticker: 'XLK', name: 'Technology Select Sector SPDR Fund', sector: 'Technology', exchange: 'NYSE Arca', price: 284, sharesM: 260, floatM: 260, dividend: q(1.6), iv: 0.22, beta: 1.25, shortPct: 1.8, advM: 7, style: 'growth' }),
  etf({ ticker: 'SMH', name: 'VanEck Semiconductor ETF', sector: 'Technology', exchange: 'NASDAQ', price: 322, sharesM: 95, floatM: 95, dividend: { annualUsd: 1.2, frequency: 'annual' }, iv: 0.34, beta: 1.6, shortPct: 3, advM: 8, style: 'growth' }),
  // Indices: quoted, optionable, but with no shares, float or dividends
  index({ ticker: 'SPX', name: 'S&P 500 Index', sector: null, exchange: 'CBOE', price: 6705, iv: 0.15, beta: 1, dailyExpiries: true }),
  index({ ticker: 'NDX', name: 'Nasdaq-100 Index', sector: null, exchange: 'NASDAQ', price: 24550, iv: 0.19, beta: 1.15, style: 'growth', dailyExpiries: true }),
  index({ ticker: 'RUT', name: 'Russell 2000 Index', sector: null, exchange: 'CBOE', price: 2440, iv: 0.22, beta: 1.2, style: 'small', dailyExpiries: true }),
  index({ ticker: 'VIX', name: 'CBOE Volatility Index', sector: null, exchange: 'CBOE', price: 17, iv: 0.9, beta: -4 }),
  // Mega and large caps
  stock({ ticker: 'AAPL', name: 'Apple Inc.', sector: 'Technology', exchange: 'NASDAQ', price: 268, sharesM: 14840, floatM: 14800, dividend: q(1.04, '2012-08-09'), iv: 0.25, beta: 1.1, shortPct: 0.8, advM: 48, revenueB: 416, margin: 0.27, segments: [['iPhone', 0.5], ['Services', 0.26], ['Mac', 0.08], ['iPad', 0.07], ['Wearables, Home and Accessories', 0.09]] }),
  stock({ ticker: 'MSFT', name: 'Microsoft Corporation', sector: 'Technology', exchange: 'NASDAQ', price: 508, sharesM: 7430, floatM: 7330, dividend: q(3.64, '2003-02-19'), iv: 0.23, beta: 1.05, shortPct: 0.7, advM: 20, revenueB: 282, margin: 0.36, segments: [['Intelligent Cloud', 0.43], ['Productivity and Business Processes', 0.33], ['More Personal Computing', 0.24]], style: 'growth' }),
  stock({ ticker: 'NVDA', name: 'NVIDIA Corporation', sector: 'Technology', exchange: 'NASDAQ', price: 186, sharesM: 24300, floatM: 23400, dividend: q(0.04, '2012-11-20'), iv: 0.45, beta: 1.75, shortPct: 1, advM: 180, revenueB: 187, margin: 0.53, segments: [['Data Center', 0.88], ['Gaming', 0.08], ['Professional Visualization', 0.02], ['Automotive', 0.02]], style: 'growth' }),
  stock({ ticker: 'AMZN', name: 'Amazon.com, Inc.', sector: 'Consumer Cyclical', exchange: 'NASDAQ', price: 226, sharesM: 10690, floatM: 9600, dividend: null, iv: 0.31, beta: 1.3, shortPct: 0.8, advM: 45, revenueB: 691, margin: 0.11, segments: [['Online Stores', 0.36], ['Third-Party Seller Services', 0.24], ['AWS', 0.18], ['Advertising Services', 0.09], ['Subscription Services', 0.07], ['Physical Stores', 0.03], ['Other', 0.03]], style: 'growth' }),
  stock({ ticker: 'GOOGL', name: 'Alphabet Inc. Class A', sector: 'Communication Services', exchange: 'NASDAQ', price: 289, sharesM: 5820, floatM: 5400, dividend: q(0.84, '2024-06-10'), iv: 0.3, beta: 1.05, shortPct: 0.9, advM: 35, revenueB: 385, margin: 0.31, segments: [['Google Search & other', 0.56], ['Google Cloud', 0.14], ['YouTube ads', 0.1], ['Google subscriptions, platforms, and devices', 0.11], ['Google Network', 0.08], ['Other Bets', 0.01]] }),
  stock({ ticker: 'META', name: 'Meta Platforms, Inc.', sector: 'Communication Services', exchange: 'NASDAQ', price: 598, sharesM: 2520, floatM: 2180, dividend: q(2.1, '2024-02-22'), iv: 0.36, beta: 1.25, shortPct: 1.2, advM: 14, revenueB: 189, margin: 0.36, segments: [['Family of Apps', 0.99], ['Reality Labs', 0.01]], style: 'growth' }),
  stock({ ticker: 'TSLA', name: 'Tesla, Inc.', sector: 'Consumer Cyclical', exchange: 'NASDAQ', price: 418, sharesM: 3320, floatM: 2880, dividend: null, iv: 0.58, beta: 2, shortPct: 2.6, advM: 95, revenueB: 95, margin: 0.06, segments: [['Automotive', 0.76], ['Energy Generation and Storage', 0.12], ['Services and Other', 0.12]], style: 'growth' }),
  stock({ ticker: 'AVGO', name: 'Broadcom Inc.', sector: 'Technology', exchange: 'NASDAQ', price: 342, sharesM: 4720, floatM: 4620, dividend: q(2.36, '2010-12-20'), iv: 0.44, beta: 1.55, shortPct: 1.3, advM: 22, revenueB: 60, margin: 0.36, segments: [['Semiconductor solutions', 0.57], ['Infrastructure software', 0.43]], style: 'growth' }),
  stock({ ticker: 'AMD', name: 'Advanced Micro Devices, Inc.', sector: 'Technology', exchange: 'NASDAQ', price: 233, sharesM: 1620, floatM: 1610, dividend: null, iv: 0.52, beta: 1.85, shortPct: 2.4, advM: 55, revenueB: 32, margin: 0.1, segments: [['Data Center', 0.48], ['Client', 0.3], ['Gaming', 0.11], ['Embedded', 0.11]], style: 'growth' }),
  stock({ ticker: 'NFLX', name: 'Netflix, Inc.', sector: 'Communication Services', exchange: 'NASDAQ', price: 109, sharesM: 4240, floatM: 4200, dividend: null, iv: 0.34, beta: 1.2, shortPct: 1.7, advM: 40, revenueB: 44, margin: 0.25, segments: [['United States and Canada', 0.44], ['Europe, Middle East and Africa', 0.32], ['Latin America', 0.12], ['Asia-Pacific', 0.12]] }),
  stock({ ticker: 'ORCL', name: 'Oracle Corporation', sector: 'Technology', exchange: 'NYSE', price: 224, sharesM: 2840, floatM: 1680, dividend: q(2), iv: 0.5, beta: 1.4, shortPct: 1.4, advM: 28, revenueB: 61, margin: 0.2, segments: [['Cloud services and license support', 0.76], ['Cloud license and on-premise license', 0.09], ['Hardware', 0.05], ['Services', 0.1]] }),
  stock({ ticker: 'CRM', name: 'Salesforce, Inc.', sector: 'Technology', exchange: 'NYSE', price: 238, sharesM: 955, floatM: 930, dividend: q(1.66, '2024-03-13'), iv: 0.34, beta: 1.2, shortPct: 1.6, advM: 8, revenueB: 40, margin: 0.16, segments: [['Subscription and support', 0.94], ['Professional services', 0.06]] }),
  stock({ ticker: 'ADBE', name: 'Adobe Inc.', sector: 'Technology', exchange: 'NASDAQ', price: 334, sharesM: 420, floatM: 418, dividend: null, iv: 0.36, beta: 1.2, shortPct: 2.1, advM: 4, revenueB: 23.5, margin: 0.3, segments: [['Digital Media', 0.74], ['Digital Experience', 0.25], ['Publishing and Advertising', 0.01]] }),
  stock({ ticker: 'INTC', name: 'Intel Corporation', sector: 'Technology', exchange: 'NASDAQ', price: 37, sharesM: 4770, floatM: 4360, dividend: null, iv: 0.55, beta: 1.3, shortPct: 3.1, advM: 110, revenueB: 53, margin: -0.05, segments: [['Client Computing Group', 0.57], ['Data Center and AI', 0.32], ['Intel Foundry', 0.08], ['All other', 0.03]] }),
  stock({ ticker: 'PLTR', name: 'Palantir Technologies Inc.', sector: 'Technology', exchange: 'NASDAQ', price: 178, sharesM: 2370, floatM: 2100, dividend: null, iv: 0.62, beta: 2.4, shortPct: 2.4, advM: 60, revenueB: 3.9, margin: 0.28, segments: [['Government', 0.55], ['Commercial', 0.45]], style: 'growth' }),
  // Financials
  stock({ ticker: 'JPM', name: 'JPMorgan Chase & Co.', sector: 'Financial Services', exchange: 'NYSE', price: 306, sharesM: 2750, floatM: 2730, dividend: q(6), iv: 0.22, beta: 1.05, shortPct: 0.8, advM: 9, revenueB: 280, margin: 0.2, segments: [['Commercial & Investment Bank', 0.4], ['Consumer & Community Banking', 0.42], ['Asset & Wealth Management', 0.13], ['Corporate', 0.05]] }),
  stock({ ticker: 'BAC', name: 'Bank of America Corporation', sector: 'Financial Services', exchange: 'NYSE', price: 52, sharesM: 7400, floatM: 7380, dividend: q(1.12), iv: 0.26, beta: 1.25, shortPct: 1, advM: 38, revenueB: 190, margin: 0.15, segments: [['Consumer Banking', 0.4], ['Global Wealth & Investment Management', 0.22], ['Global Banking', 0.2], ['Global Markets', 0.18]] }),
  stock({ ticker: 'GS', name: 'The Goldman Sachs Group, Inc.', sector: 'Financial Services', exchange: 'NYSE', price: 788, sharesM: 305, floatM: 303, dividend: q(16), iv: 0.28, beta: 1.35, shortPct: 1.5, advM: 2.2, revenueB: 57, margin: 0.27, segments: [['Global Banking & Markets', 0.66], ['Asset & Wealth Management', 0.28], ['Platform Solutions', 0.06]] }),
  stock({ ticker: 'V', name: 'Visa Inc.', sector: 'Financial Services', exchange: 'NYSE', price: 338, sharesM: 1940, floatM: 1930, dividend: q(2.68), iv: 0.2, beta: 0.9, shortPct: 1.4, advM: 6.5, revenueB: 40, margin: 0.5, segments: [['Data processing revenues', 0.4], ['Service revenues', 0.33], ['International transaction revenues', 0.27]] }),
  stock({ ticker: 'MA', name: 'Mastercard Incorporated', sector: 'Financial Services', exchange: 'NYSE', price: 556, sharesM: 905, floatM: 895, dividend: q(3.04), iv: 0.21, beta: 1, shortPct: 0.6, advM: 2.8, revenueB: 32, margin: 0.45, segments: [['Payment network', 0.58], ['Value-added services and solutions', 0.42]] }),
  stock({ ticker: 'BRK.B', name: 'Berkshire Hathaway Inc. Class B', sector: 'Financial Services', exchange: 'NYSE', price: 496, sharesM: 2160, floatM: 1310, dividend: null, iv: 0.16, beta: 0.8, shortPct: 0.6, advM: 4.2, revenueB: 372, margin: 0.24, segments: [['Insurance', 0.3], ['BNSF Railway', 0.07], ['Berkshire Hathaway Energy', 0.07], ['Manufacturing, Service and Retailing', 0.5], ['Investment income', 0.06]] }),
  stock({ ticker: 'COIN', name: 'Coinbase Global, Inc.', sector: 'Financial Services', exchange: 'NASDAQ', price: 282, sharesM: 257, floatM: 212, dividend: null, iv: 0.72, beta: 2.6, shortPct: 7.8, advM: 10, revenueB: 7.4, margin: 0.35, segments: [['Transaction revenue', 0.56], ['Subscription and services', 0.4], ['Other', 0.04]], style: 'crypto' }),
  stock({ ticker: 'SOFI', name: 'SoFi Technologies, Inc.', sector: 'Financial Services', exchange: 'NASDAQ', price: 28, sharesM: 1190, floatM: 1150, dividend: null, iv: 0.64, beta: 1.9, shortPct: 10.8, advM: 85, revenueB: 3.4, margin: 0.12, segments: [['Lending', 0.5], ['Financial Services', 0.35], ['Technology Platform', 0.15]], style: 'growth' }),
  // Energy and materials
  stock({ ticker: 'XOM', name: 'Exxon Mobil Corporation', sector: 'Energy', exchange: 'NYSE', price: 116, sharesM: 4260, floatM: 4250, dividend: q(4.12), iv: 0.24, beta: 0.55, shortPct: 0.9, advM: 15, revenueB: 332, margin: 0.09, segments: [['Energy Products', 0.62], ['Upstream', 0.18], ['Chemical Products', 0.1], ['Specialty Products', 0.1]] }),
  stock({ ticker: 'CVX', name: 'Chevron Corporation', sector: 'Energy', exchange: 'NYSE', price: 154, sharesM: 2010, floatM: 2000, dividend: q(6.84), iv: 0.24, beta: 0.6, shortPct: 1.4, advM: 8, revenueB: 190, margin: 0.07, segments: [['Downstream', 0.8], ['Upstream', 0.19], ['All Other', 0.01]] }),
  stock({ ticker: 'OXY', name: 'Occidental Petroleum Corporation', sector: 'Energy', exchange: 'NYSE', price: 42, sharesM: 985, floatM: 700, dividend: q(0.96), iv: 0.33, beta: 0.9, shortPct: 3.4, advM: 11, revenueB: 27, margin: 0.09, segments: [['Oil and Gas', 0.8], ['Chemical', 0.18], ['Midstream and Marketing', 0.02]] }),
  stock({ ticker: 'LIN', name: 'Linde plc', sector: 'Basic Materials', exchange: 'NASDAQ', price: 424, sharesM: 470, floatM: 468, dividend: q(6), iv: 0.2, beta: 0.85, shortPct: 0.9, advM: 2, revenueB: 33, margin: 0.2, segments: [['Americas', 0.43], ['EMEA', 0.26], ['APAC', 0.2], ['Engineering', 0.08], ['Other', 0.03]] }),
  stock({ ticker: 'FCX', name: 'Freeport-McMoRan Inc.', sector: 'Basic Materials', exchange: 'NYSE', price: 41, sharesM: 1440, floatM: 1430, dividend: q(0.6), iv: 0.42, beta: 1.6, shortPct: 1.7, advM: 14, revenueB: 25, margin: 0.08, segments: [['Copper', 0.75], ['Gold', 0.2], ['Molybdenum', 0.05]] }),
  stock({ ticker: 'NEM', name: 'Newmont Corporation', sector: 'Basic Materials', exchange: 'NYSE', price: 86, sharesM: 1100, floatM: 1095, dividend: q(1), iv: 0.44, beta: 0.6, shortPct: 1.3, advM: 11, revenueB: 20, margin: 0.25, segments: [['Gold', 0.85], ['Copper', 0.08], ['Silver', 0.05], ['Other', 0.02]], style: 'gold' }),
  // Health care
  stock({ ticker: 'LLY', name: 'Eli Lilly and Company', sector: 'Healthcare', exchange: 'NYSE', price: 1012, sharesM: 946, floatM: 895, dividend: q(6), iv: 0.35, beta: 0.45, shortPct: 0.8, advM: 4, revenueB: 60, margin: 0.3, segments: [['Cardiometabolic Health', 0.65], ['Oncology', 0.16], ['Immunology', 0.09], ['Neuroscience', 0.06], ['Other', 0.04]] }),
  stock({ ticker: 'UNH', name: 'UnitedHealth Group Incorporated', sector: 'Healthcare', exchange: 'NYSE', price: 331, sharesM: 906, floatM: 900, dividend: q(8.84), iv: 0.38, beta: 0.55, shortPct: 1.2, advM: 11, revenueB: 435, margin: 0.04, segments: [['UnitedHealthcare', 0.7], ['Optum Health', 0.12], ['Optum Rx', 0.15], ['Optum Insight', 0.03]] }),
  stock({ ticker: 'JNJ', name: 'Johnson & Johnson', sector: 'Healthcare', exchange: 'NYSE', price: 196, sharesM: 2410, floatM: 2400, dividend: q(5.2), iv: 0.17, beta: 0.45, shortPct: 0.7, advM: 8, revenueB: 92, margin: 0.2, segments: [['Innovative Medicine', 0.64], ['MedTech', 0.36]] }),
  stock({ ticker: 'PFE', name: 'Pfizer Inc.', sector: 'Healthcare', exchange: 'NYSE', price: 25, sharesM: 5690, floatM: 5680, dividend: q(1.72), iv: 0.26, beta: 0.55, shortPct: 1.4, advM: 40, revenueB: 63, margin: 0.15, segments: [['Biopharma', 0.98], ['Pfizer Ignite', 0.02]] }),
  stock({ ticker: 'MRK', name: 'Merck & Co., Inc.', sector: 'Healthcare', exchange: 'NYSE', price: 94, sharesM: 2500, floatM: 2490, dividend: q(3.24), iv: 0.27, beta: 0.4, shortPct: 1.1, advM: 14, revenueB: 64, margin: 0.26, segments: [['Pharmaceutical', 0.9], ['Animal Health', 0.09], ['Other', 0.01]] }),
  // Consumer
  stock({ ticker: 'WMT', name: 'Walmart Inc.', sector: 'Consumer Defensive', exchange: 'NASDAQ', price: 104, sharesM: 7980, floatM: 4330, dividend: q(0.94), iv: 0.22, beta: 0.55, shortPct: 0.7, advM: 18, revenueB: 693, margin: 0.03, segments: [['Walmart U.S.', 0.68], ['Walmart International', 0.18], ["Sam's Club U.S.", 0.14]] }),
  stock({ ticker: 'COST', name: 'Costco Wholesale Corporation', sector: 'Consumer Defensive', exchange: 'NASDAQ', price: 918, sharesM: 443, floatM: 442, dividend: q(5.2), iv: 0.22, beta: 0.8, shortPct: 1.2, advM: 2, revenueB: 275, margin: 0.03, segments: [['Foods and Sundries', 0.4], ['Non-Foods', 0.25], ['Fresh Foods', 0.14], ['Warehouse Ancillary and Other', 0.19], ['Membership fees', 0.02]] }),
  stock({ ticker: 'PG', name: 'The Procter & Gamble Company', sector: 'Consumer Defensive', exchange: 'NYSE', price: 149, sharesM: 2340, floatM: 2330, dividend: q(4.23), iv: 0.17, beta: 0.4, shortPct: 0.8, advM: 7, revenueB: 84, margin: 0.19, segments: [['Fabric & Home Care', 0.36], ['Baby, Feminine & Family Care', 0.24], ['Beauty', 0.18], ['Health Care', 0.14], ['Grooming', 0.08]] }),
  stock({ ticker: 'KO', name: 'The Coca-Cola Company', sector: 'Consumer Defensive', exchange: 'NYSE', price: 69, sharesM: 4300, floatM: 3900, dividend: q(2.04), iv: 0.16, beta: 0.45, shortPct: 0.7, advM: 14, revenueB: 47, margin: 0.27, segments: [['Concentrate operations', 0.56], ['Finished product operations', 0.44]] }),
  stock({ ticker: 'PEP', name: 'PepsiCo, Inc.', sector: 'Consumer Defensive', exchange: 'NASDAQ', price: 148, sharesM: 1370, floatM: 1368, dividend: q(5.69), iv: 0.19, beta: 0.45, shortPct: 1.3, advM: 7, revenueB: 92, margin: 0.1, segments: [['PepsiCo Beverages North America', 0.3], ['Frito-Lay North America', 0.26], ['International Beverages Franchise', 0.04], ['Europe, Middle East and Africa', 0.2], ['Latin America', 0.13], ['Asia Pacific', 0.07]] }),
  stock({ ticker: 'MCD', name: "McDonald's Corporation", sector: 'Consumer Cyclical', exchange: 'NYSE', price: 304, sharesM: 714, floatM: 713, dividend: q(7.44), iv: 0.19, beta: 0.6, shortPct: 1.1, advM: 3.5, revenueB: 26, margin: 0.32, segments: [['Franchised restaurants', 0.61], ['Company-operated restaurants', 0.37], ['Other', 0.02]] }),
  stock({ ticker: 'HD', name: 'The Home Depot, Inc.', sector: 'Consumer Cyclical', exchange: 'NYSE', price: 362, sharesM: 995, floatM: 993, dividend: q(9.2), iv: 0.24, beta: 1, shortPct: 0.8, advM: 3.5, revenueB: 165, margin: 0.09, segments: [['Building materials', 0.34], ['Decor', 0.34], ['Hardlines', 0.32]] }),
  stock({ ticker: 'NKE', name: 'NIKE, Inc.', sector: 'Consumer Cyclical', exchange: 'NYSE', price: 63, sharesM: 1477, floatM: 1200, dividend: q(1.64), iv: 0.37, beta: 1.1, shortPct: 3.2, advM: 16, revenueB: 47, margin: 0.07, segments: [['Footwear', 0.68], ['Apparel', 0.27], ['Equipment', 0.05]] }),
  stock({ ticker: 'SBUX', name: 'Starbucks Corporation', sector: 'Consumer Cyclical', exchange: 'NASDAQ', price: 84, sharesM: 1137, floatM: 1135, dividend: q(2.48), iv: 0.32, beta: 1, shortPct: 2.2, advM: 9, revenueB: 37, margin: 0.05, segments: [['North America', 0.75], ['International', 0.23], ['Channel Development', 0.02]] }),
  stock({ ticker: 'DIS', name: 'The Walt Disney Company', sector: 'Communication Services', exchange: 'NYSE', price: 111, sharesM: 1800, floatM: 1795, dividend: { annualUsd: 1, frequency: 'semiannual' }, iv: 0.27, beta: 1.1, shortPct: 1, advM: 9, revenueB: 94, margin: 0.12, segments: [['Entertainment', 0.45], ['Experiences', 0.37], ['Sports', 0.18]] }),
  // Industrials, REITs, utilities, telecoms
  stock({ ticker: 'CAT', name: 'Caterpillar Inc.', sector: 'Industrials', exchange: 'NYSE', price: 562, sharesM: 468, floatM: 466, dividend: q(6.04), iv: 0.3, beta: 1.1, shortPct: 1.5, advM: 3, revenueB: 64, margin: 0.15, segments: [['Construction Industries', 0.38], ['Energy & Transportation', 0.4], ['Resource Industries', 0.18], ['Financial Products', 0.04]] }),
  stock({ ticker: 'BA', name: 'The Boeing Company', sector: 'Industrials', exchange: 'NYSE', price: 201, sharesM: 760, floatM: 755, dividend: null, iv: 0.36, beta: 1.4, shortPct: 1.6, advM: 9, revenueB: 80, margin: -0.05, segments: [['Commercial Airplanes', 0.42], ['Defense, Space & Security', 0.3], ['Global Services', 0.28]] }),
  stock({ ticker: 'GE', name: 'GE Aerospace', sector: 'Industrials', exchange: 'NYSE', price: 302, sharesM: 1060, floatM: 1055, dividend: q(1.44), iv: 0.31, beta: 1.2, shortPct: 0.9, advM: 5, revenueB: 44, margin: 0.18, segments: [['Commercial Engines & Services', 0.76], ['Defense & Propulsion Technologies', 0.24]] }),
  stock({ ticker: 'UPS', name: 'United Parcel Service, Inc.', sector: 'Industrials', exchange: 'NYSE', price: 95, sharesM: 848, floatM: 735, dividend: q(6.56), iv: 0.33, beta: 1, shortPct: 2.6, advM: 7, revenueB: 90, margin: 0.06, segments: [['U.S. Domestic Package', 0.64], ['International Package', 0.2], ['Supply Chain Solutions', 0.16]] }),
  stock({ ticker: 'PLD', name: 'Prologis, Inc.', sector: 'Real Estate', exchange: 'NYSE', price: 124, sharesM: 928, floatM: 925, dividend: q(4.04), iv: 0.25, beta: 1.05, shortPct: 1.1, advM: 3.5, revenueB: 8.6, margin: 0.38, segments: [['Real Estate Operations', 0.92], ['Strategic Capital', 0.08]], style: 'rates' }),
  stock({ ticker: 'O', name: 'Realty Income Corporation', sector: 'Real Estate', exchange: 'NYSE', price: 57, sharesM: 900, floatM: 898, dividend: m(3.23), iv: 0.2, beta: 0.8, shortPct: 2.9, advM: 5, revenueB: 5.6, margin: 0.17, segments: [['Rental revenue', 0.95], ['Other revenue', 0.05]], style: 'rates' }),
  stock({ ticker: 'AMT', name: 'American Tower Corporation', sector: 'Real Estate', exchange: 'NYSE', price: 181, sharesM: 468, floatM: 466, dividend: q(6.8), iv: 0.26, beta: 0.9, shortPct: 1.3, advM: 2.5, revenueB: 10.3, margin: 0.22, segments: [['U.S. & Canada property', 0.5], ['International property', 0.33], ['Data Centers', 0.09], ['Services', 0.08]], style: 'rates' }),
  stock({ ticker: 'NEE', name: 'NextEra Energy, Inc.', sector: 'Utilities', exchange: 'NYSE', price: 83, sharesM: 2060, floatM: 2055, dividend: q(2.27), iv: 0.26, beta: 0.6, shortPct: 1.2, advM: 10, revenueB: 26, margin: 0.25, segments: [['Florida Power & Light', 0.7], ['NextEra Energy Resources', 0.3]], style: 'rates' }),
  stock({ ticker: 'DUK', name: 'Duke Energy Corporation', sector: 'Utilities', exchange: 'NYSE', price: 123, sharesM: 778, floatM: 776, dividend: q(4.26), iv: 0.17, beta: 0.45, shortPct: 1.2, advM: 3.3, revenueB: 31, margin: 0.15, segments: [['Electric Utilities and Infrastructure', 0.9], ['Gas Utilities and Infrastructure', 0.1]], style: 'rates' }),
  stock({ ticker: 'SO', name: 'The Southern Company', sector: 'Utilities', exchange: 'NYSE', price: 92, sharesM: 1100, floatM: 1098, dividend: q(2.96), iv: 0.17, beta: 0.45, shortPct: 1.6, advM: 4.5, revenueB: 28, margin: 0.16, segments: [['Traditional Electric Operating Companies', 0.7], ['Southern Company Gas', 0.16], ['Southern Power', 0.08], ['Other', 0.06]], style: 'rates' }),
  stock({ ticker: 'T', name: 'AT&T Inc.', sector: 'Communication Services', exchange: 'NYSE', price: 25.5, sharesM: 7170, floatM: 7160, dividend: q(1.11), iv: 0.22, beta: 0.6, shortPct: 1.3, advM: 35, revenueB: 123, margin: 0.1, segments: [['Mobility', 0.7], ['Business Wireline', 0.14], ['Consumer Wireline', 0.11], ['Latin America', 0.05]] }),
  stock({ ticker: 'VZ', name: 'Verizon Communications Inc.', sector: 'Communication Services', exchange: 'NYSE', price: 40, sharesM: 4220, floatM: 4210, dividend: q(2.71), iv: 0.2, beta: 0.45, shortPct: 1.2, advM: 20, revenueB: 137, margin: 0.13, segments: [['Consumer', 0.76], ['Business', 0.22], ['Other', 0.02]] }),
  stock({ ticker: 'UBER', name: 'Uber Technologies, Inc.', sector: 'Technology', exchange: 'NYSE', price: 91, sharesM: 2080, floatM: 2060, dividend: null, iv: 0.4, beta: 1.4, shortPct: 2, advM: 20, revenueB: 49, margin: 0.2, segments: [['Mobility', 0.56], ['Delivery', 0.32], ['Freight', 0.12]], style: 'growth' }),
  // Meme and high-short-interest names
  stock({ ticker: 'GME', name: 'GameStop Corp.', sector: 'Consumer Cyclical', exchange: 'NYSE', price: 22.8, sharesM: 447, floatM: 405, dividend: null, iv: 0.72, beta: 1.3, shortPct: 14.5, advM: 9, revenueB: 3.8, margin: 0.05, segments: [['Hardware and accessories', 0.58], ['Software', 0.25], ['Collectibles', 0.17]], style: 'meme' }),
  stock({ ticker: 'AMC', name: 'AMC Entertainment Holdings, Inc.', sector: 'Communication Services', exchange: 'NYSE', price: 2.9, sharesM: 432, floatM: 428, dividend: null, iv: 0.92, beta: 1.6, shortPct: 18.5, advM: 14, revenueB: 4.9, margin: -0.06, segments: [['Admissions', 0.53], ['Food and beverage', 0.37], ['Other theatre', 0.1]], style: 'meme' }),
  stock({ ticker: 'MSTR', name: 'Strategy Inc', sector: 'Technology', exchange: 'NASDAQ', price: 205, sharesM: 285, floatM: 262, dividend: null, iv: 0.82, beta: 2.9, shortPct: 10.5, advM: 16, revenueB: 0.46, margin: 0.5, segments: [['Subscription services', 0.4], ['Product support', 0.45], ['Other services', 0.15]], style: 'crypto' }),
  stock({ ticker: 'RIVN', name: 'Rivian Automotive, Inc.', sector: 'Consumer Cyclical', exchange: 'NASDAQ', price: 14.6, sharesM: 1220, floatM: 960, dividend: null, iv: 0.68, beta: 1.9, shortPct: 16.2, advM: 38, revenueB: 5.3, margin: -0.6, segments: [['Automotive', 0.8], ['Software and services', 0.2]], style: 'growth' }),
  stock({ ticker: 'CVNA', name: 'Carvana Co.', sector: 'Consumer Cyclical', exchange: 'NYSE', price: 340, sharesM: 215, floatM: 130, dividend: null, iv: 0.66, beta: 2.8, shortPct: 12.8, advM: 4, revenueB: 18, margin: 0.04, segments: [['Used vehicle sales', 0.8], ['Wholesale vehicle sales', 0.13], ['Other sales and revenues', 0.07]], style: 'meme' }),
  stock({ ticker: 'BYND', name: 'Beyond Meat, Inc.', sector: 'Consumer Defensive', exchange: 'NASDAQ', price: 1.6, sharesM: 380, floatM: 300, dividend: null, iv: 1.3, beta: 1.9, shortPct: 28.5, advM: 30, revenueB: 0.3, margin: -0.6, segments: [['U.S. retail', 0.45], ['U.S. foodservice', 0.12], ['International retail', 0.22], ['International foodservice', 0.21]], style: 'meme' }),
];

const BY_TICKER = new Map(REFERENCE.map((symbol) => [symbol.ticker, symbol]));

/**
 * ETFs that track an index trade as one market with it: one intraday path (SPY stays a
 * tenth of SPX all day, not drifting 2 % apart) and one customer positioning in options.
 */
const TRACKED_INDEX: Readonly<Record<string, string>> = { SPY: 'SPX', QQQ: 'NDX', IWM: 'RUT' };

/** The ticker whose intraday path and options positioning `ticker` shares: its index, or itself. */
export function marketFamily(ticker: string): string {
  return TRACKED_INDEX[ticker] ?? ticker;
}

export function referenceSymbol(ticker: string): ReferenceSymbol | undefined {
  return BY_TICKER.get(ticker);
}

/** Companies only: what screeners of single names (short interest, insiders...) cover. */
export const STOCKS: readonly ReferenceSymbol[] = REFERENCE.filter((s) => s.kind === 'stock');
