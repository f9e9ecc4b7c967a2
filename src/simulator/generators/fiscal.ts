/**
 * Company fiscal calendars: most companies close their year in December, but AAPL's ends
 * the last Saturday of September, NVDA's the last Sunday of January, MSFT's on June 30,
 * and so on. Quarters, 10-Q/10-K forms, labels and filing dates follow each company's own
 * year, and each company files on its own lag, so two companies rarely file the same day.
 */
import { shiftDate, tradingDayOnOrBefore, weekday, type EtDate } from '../../catalog/market-calendar.js';
import { seededRandom } from '../random.js';

/** How a fiscal period ends within its month: on the last day, or on the month's last given weekday (52/53-week years). */
type PeriodEndRule = 'month-end' | 'last-friday' | 'last-saturday' | 'last-sunday';

interface FiscalYear {
  /** Month (1 to 12) in which the fiscal year ends. */
  readonly endMonth: number;
  readonly rule: PeriodEndRule;
}

const DECEMBER: FiscalYear = { endMonth: 12, rule: 'month-end' };

/** Companies whose fiscal year is not the calendar year (from their 10-K filings). */
const FISCAL_YEARS: Readonly<Record<string, FiscalYear>> = {
  AAPL: { endMonth: 9, rule: 'last-saturday' },
  MSFT: { endMonth: 6, rule: 'month-end' },
  NVDA: { endMonth: 1, rule: 'last-sunday' },
  AVGO: { endMonth: 10, rule: 'last-sunday' },
  ORCL: { endMonth: 5, rule: 'month-end' },
  CRM: { endMonth: 1, rule: 'month-end' },
  ADBE: { endMonth: 11, rule: 'last-friday' },
  WMT: { endMonth: 1, rule: 'month-end' },
  COST: { endMonth: 8, rule: 'last-sunday' },
  NKE: { endMonth: 5, rule: 'month-end' },
  SBUX: { endMonth: 9, rule: 'last-sunday' },
  DIS: { endMonth: 9, rule: 'last-saturday' },
  PG: { endMonth: 6, rule: 'month-end' },
  AMD: { endMonth: 12, rule: 'last-saturday' },
  INTC: { endMonth: 12, rule: 'last-saturday' },
  GME: { endMonth: 1, rule: 'last-saturday' },
};

export function fiscalYearOf(ticker: string): FiscalYear {
  return FISCAL_YEARS[ticker] ?? DECEMBER;
}

const RULE_WEEKDAY: Record<Exclude<PeriodEndRule, 'month-end'>, number> = { 'last-friday': 5, 'last-saturday': 6, 'last-sunday': 0 };

function periodEnd(year: number, month: number, rule: PeriodEndRule): EtDate {
  const last = new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);
  if (rule === 'month-end') return last;
  const target = RULE_WEEKDAY[rule];
  return shiftDate(last, -((weekday(last) - target + 7) % 7));
}

export interface FiscalQuarter {
  /** e.g. FY2026Q1: the fiscal year is named for the calendar year it ends in. */
  readonly label: string;
  readonly periodEnd: EtDate;
  readonly form: '10-Q' | '10-K';
  readonly filedOn: EtDate;
  readonly fiscalQuarter: number;
}

/** Days from a period's end to its filing: each company its own, a little different each time. */
function filingLag(ticker: string, end: EtDate, annual: boolean): number {
  const habit = seededRandom(0, 'filing-habit', ticker)();
  const jitter = seededRandom(0, 'filing-jitter', ticker, end)();
  return annual ? 28 + Math.floor(habit * 25) + Math.floor(jitter * 5) : 24 + Math.floor(habit * 16) + Math.floor(jitter * 5);
}

/** The company's fiscal quarters filed by `date`, newest first. */
export function filedQuarters(ticker: string, date: EtDate, count: number): FiscalQuarter[] {
  const fiscal = fiscalYearOf(ticker);
  const out: FiscalQuarter[] = [];
  let year = Number(date.slice(0, 4));
  let month = Number(date.slice(5, 7));
  for (let guard = 0; out.length < count && guard < 12 * 40; guard += 1) {
    const offset = (((month - fiscal.endMonth) % 12) + 12) % 12;
    if (offset % 3 === 0) {
      const end = periodEnd(year, month, fiscal.rule);
      const fiscalQuarter = offset === 0 ? 4 : offset / 3;
      const annual = fiscalQuarter === 4;
      const filedOn = tradingDayOnOrBefore(shiftDate(end, filingLag(ticker, end, annual)));
      // The fiscal year ends at the next end month on or after this period.
      const fiscalYear = month <= fiscal.endMonth ? year : year + 1;
      if (filedOn <= date)
        out.push({ label: `FY${fiscalYear}Q${fiscalQuarter}`, periodEnd: end, form: annual ? '10-K' : '10-Q', filedOn, fiscalQuarter });
    }
    month -= 1;
    if (month === 0) {
      month = 12;
      year -= 1;
    }
  }
  return out;
}
