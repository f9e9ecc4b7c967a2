/** Black-Scholes pieces the option datasets share: gamma for dealer exposure, prices for quotes (years in trading time: trading-time.ts). */

/** Standard normal density. */
function pdf(x: number): number {
  return Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI);
}

/** Standard normal distribution (Abramowitz-Stegun 26.2.17, error below 1e-7). */
export function cdf(x: number): number {
  const t = 1 / (1 + 0.2316419 * Math.abs(x));
  const poly = t * (0.31938153 + t * (-0.356563782 + t * (1.781477937 + t * (-1.821255978 + t * 1.330274429))));
  const tail = pdf(x) * poly;
  return x >= 0 ? 1 - tail : tail;
}

function d1(spot: number, strike: number, vol: number, years: number, rate: number): number {
  return (Math.log(spot / strike) + (rate + 0.5 * vol * vol) * years) / (vol * Math.sqrt(years));
}

/** Gamma per share (same for calls and puts). */
export function gamma(spot: number, strike: number, vol: number, years: number, rate = 0.04): number {
  return pdf(d1(spot, strike, vol, years, rate)) / (spot * vol * Math.sqrt(years));
}

export function optionPrice(right: 'C' | 'P', spot: number, strike: number, vol: number, years: number, rate = 0.04): number {
  const a = d1(spot, strike, vol, years, rate);
  const b = a - vol * Math.sqrt(years);
  const discount = Math.exp(-rate * years);
  return right === 'C' ? spot * cdf(a) - strike * discount * cdf(b) : strike * discount * cdf(-b) - spot * cdf(-a);
}

/** Implied volatility at a strike: the at-the-money level with a downside skew, bounded. */
export function skewedVol(atm: number, spot: number, strike: number, skew = 1.2): number {
  const moneyness = Math.log(strike / spot);
  return Math.min(3 * atm, Math.max(0.6 * atm, atm * (1 - skew * moneyness + 2 * moneyness * moneyness)));
}

/** Listed strike spacing for a price level. */
export function strikeStep(price: number, dailyExpiries = false): number {
  if (dailyExpiries && price < 1000) return 1;
  if (price < 5) return 0.5;
  if (price < 25) return 0.5;
  if (price < 100) return 1;
  if (price < 250) return 2.5;
  if (price < 1000) return 5;
  if (price < 5000) return 10;
  return 25;
}

/** OSI symbol: root, YYMMDD, right, strike times 1000 on 8 digits. */
export function osiSymbol(ticker: string, expiration: string, right: 'C' | 'P', strike: number): string {
  return `${ticker.replace('.', '')}${expiration.slice(2).replaceAll('-', '')}${right}${String(Math.round(strike * 1000)).padStart(8, '0')}`;
}
