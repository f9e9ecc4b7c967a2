/**
 * Company fiscal calendars: most companies close their year in December, but AAPL's ends
 * the last Saturday of September, NVDA's the last Sunday of January, MSFT's on June 30,
 * and so on. Quarters, 10-Q/10-K forms, labels and report dates follow each company's own
 * year: a quarter is reported on the company's habitual weekday and lag (NVDA on the
 * Wednesday about 24 days after its quarter ends, JPM the Tuesday two weeks after), so the
 * latest quarter on a date is the one the company had reported by then, and two companies
 * rarely report the same day. The 10-Q or 10-K follows the release on the company's own lag.
 */
import { isTradingDay, nextTradingDay, shiftDate, weekday, type EtDate } from '../../catalog/market-calendar.js';
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
  /** The earnings release: the day the quarter became known. */
  readonly reportedOn: EtDate;
  readonly filedOn: EtDate;
  readonly fiscalQuarter: number;
  /** The last day of the fiscal year the quarter belongs to. */
  readonly fiscalYearEnd: EtDate;
}

/** When a company releases a quarter: the first `weekday` at least `lagDays` after the period's end. */
interface ReportHabit {
  readonly lagDays: number;
  /** 0 = Sunday ... 6 = Saturday; the release lands on the first such trading day. */
  readonly weekday: number;
  /** Extra days the fiscal year's last quarter takes (the 10-K's audit). */
  readonly annualExtraDays?: number;
  /** Days from the release to the 10-Q or 10-K filing (0: the same day). */
  readonly fileLagDays?: number;
}

/** Report habits of the companies whose calendars traders know (their 2025 releases). */
const REPORT_HABITS: Readonly<Record<string, ReportHabit>> = {
  AAPL: { lagDays: 33, weekday: 4, fileLagDays: 1 },
  MSFT: { lagDays: 28, weekday: 3 },
  NVDA: { lagDays: 24, weekday: 3 },
  AMZN: { lagDays: 29, weekday: 4, annualExtraDays: 6 },
  GOOGL: { lagDays: 23, weekday: 2, annualExtraDays: 10, fileLagDays: 1 },
  META: { lagDays: 28, weekday: 3, fileLagDays: 1 },
  TSLA: { lagDays: 21, weekday: 3, annualExtraDays: 7, fileLagDays: 1 },
  NFLX: { lagDays: 15, weekday: 4, fileLagDays: 1 },
  JPM: { lagDays: 13, weekday: 2, fileLagDays: 21 },
  BAC: { lagDays: 13, weekday: 3, fileLagDays: 20 },
  GS: { lagDays: 12, weekday: 2, fileLagDays: 20 },
  KO: { lagDays: 20, weekday: 2, annualExtraDays: 21, fileLagDays: 2 },
  ORCL: { lagDays: 8, weekday: 2, fileLagDays: 1 },
  WMT: { lagDays: 20, weekday: 4 },
  CRM: { lagDays: 31, weekday: 3, fileLagDays: 1 },
  ADBE: { lagDays: 10, weekday: 4, fileLagDays: 1 },
  AMD: { lagDays: 34, weekday: 2, fileLagDays: 1 },
  INTC: { lagDays: 23, weekday: 4, fileLagDays: 1 },
  DIS: { lagDays: 38, weekday: 4, fileLagDays: 1 },
};

/** A company the table does not name keeps a habit of its own, drawn once: a lag of 20 to 40 days, its own weekday. */
function reportHabit(ticker: string): ReportHabit {
  const known = REPORT_HABITS[ticker];
  if (known) return known;
  const habit = seededRandom(0, 'report-habit', ticker);
  return {
    lagDays: 20 + Math.floor(habit() * 20),
    weekday: 2 + Math.floor(habit() * 3),
    annualExtraDays: Math.floor(habit() * 14),
    fileLagDays: Math.floor(habit() * 3),
  };
}

/** The first trading day on or after `date` that falls on `day` of the week (the next trading day on a holiday). */
function nextWeekdayOnOrAfter(date: EtDate, day: number): EtDate {
  let candidate = shiftDate(date, (day - weekday(date) + 7) % 7);
  while (!isTradingDay(candidate)) candidate = nextTradingDay(candidate);
  return candidate;
}

/** The release of the quarter ending `end`, and the filing after it. */
export function reportDates(ticker: string, end: EtDate, annual: boolean): { reportedOn: EtDate; filedOn: EtDate } {
  const habit = reportHabit(ticker);
  const reportedOn = nextWeekdayOnOrAfter(shiftDate(end, habit.lagDays + (annual ? (habit.annualExtraDays ?? 0) : 0)), habit.weekday);
  let filedOn = shiftDate(reportedOn, habit.fileLagDays ?? 0);
  while (!isTradingDay(filedOn)) filedOn = nextTradingDay(filedOn);
  return { reportedOn, filedOn };
}

/** The company's fiscal quarters reported by `date`, newest first. */
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
      const { reportedOn, filedOn } = reportDates(ticker, end, annual);
      // The fiscal year ends at the next end month on or after this period.
      const fiscalYear = month <= fiscal.endMonth ? year : year + 1;
      if (reportedOn <= date)
        out.push({
          label: `FY${fiscalYear}Q${fiscalQuarter}`,
          periodEnd: end,
          form: annual ? '10-K' : '10-Q',
          reportedOn,
          filedOn,
          fiscalQuarter,
          fiscalYearEnd: periodEnd(fiscalYear, fiscal.endMonth, fiscal.rule),
        });
    }
    month -= 1;
    if (month === 0) {
      month = 12;
      year -= 1;
    }
  }
  return out;
}
