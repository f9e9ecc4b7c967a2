/** The pictures of the short-interest view: ranked bars, a ratio over time, volume by venue. */
import { linearScale, svg, titled } from '../shared/dom.js';
import { percent } from '../shared/format.js';
import type { RankBy, RatioPoint, ScreenerRow, VenueDay } from './model.js';

const W = 640;

/** One row per ticker, ranked: short % of float as a bar, days to cover beside it. */
export function rankedBars(rows: ScreenerRow[], by: RankBy, onPick: (ticker: string) => void): SVGSVGElement {
  const rowH = 22;
  const top = 22;
  const height = top + rows.length * rowH + 8;
  const root = svg('svg', {
    viewBox: `0 0 ${W} ${height}`,
    role: 'img',
    'aria-label': 'Short interest, ranked',
    'data-chart': 'screener',
    'data-rank-by': by,
  });
  const maxPct = Math.max(...rows.map((r) => r.shortFloatPct), 1);
  const maxDays = Math.max(...rows.map((r) => r.daysToCover ?? 0), 1);
  const pctX = linearScale([0, maxPct], [92, 400]);
  const daysX = linearScale([0, maxDays], [480, W - 50]);
  root.append(svg('text', { x: 92, y: 12 }, 'Short interest, % of float'));
  root.append(svg('text', { x: 480, y: 12 }, 'Days to cover'));
  rows.forEach((row, i) => {
    const y = top + i * rowH;
    const group = svg('g', { 'data-ticker': row.ticker, 'data-rank': i + 1, style: 'cursor:pointer' });
    // The whole row takes the click, the gap between a short bar and days to cover too.
    group.append(svg('rect', { x: 0, y, width: W, height: rowH, fill: 'transparent', 'data-hit': '' }));
    group.append(svg('text', { x: 4, y: y + 14, style: 'fill:var(--fg-2)' }, `${i + 1}.`));
    group.append(svg('text', { x: 26, y: y + 14, style: 'fill:var(--fg);font-weight:600' }, row.ticker));
    group.append(
      titled(
        svg('rect', {
          x: 92,
          y: y + 4,
          width: Math.max(1, pctX(row.shortFloatPct) - 92),
          height: rowH - 8,
          fill: 'var(--neg)',
          'data-measure': 'short-float-pct',
          'data-value': row.shortFloatPct,
        }),
        `${row.ticker}: ${percent(row.shortFloatPct)} of float sold short`,
      ),
    );
    group.append(svg('text', { x: pctX(row.shortFloatPct) + 4, y: y + 14, style: 'fill:var(--fg)' }, percent(row.shortFloatPct)));
    if (row.daysToCover !== undefined) {
      group.append(
        titled(
          svg('rect', {
            x: 480,
            y: y + 6,
            width: Math.max(1, daysX(row.daysToCover) - 480),
            height: rowH - 12,
            fill: 'var(--accent)',
            'data-measure': 'days-to-cover',
            'data-value': row.daysToCover,
          }),
          `${row.ticker}: ${row.daysToCover.toFixed(1)} days to cover`,
        ),
      );
      group.append(svg('text', { x: daysX(row.daysToCover) + 4, y: y + 14, style: 'fill:var(--fg)' }, row.daysToCover.toFixed(1)));
    }
    group.addEventListener('click', () => onPick(row.ticker));
    root.append(group);
  });
  return root;
}

/** Daily short volume ratio as bars, with the 50 % line that traders read against. */
export function ratioChart(points: RatioPoint[]): SVGSVGElement {
  const H = 200;
  const pad = { left: 40, right: 10, top: 10, bottom: 28 };
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': 'Short volume ratio by day', 'data-chart': 'ratio' });
  if (points.length === 0) return root;
  const hi = Math.max(0.6, ...points.map((p) => p.ratio));
  const y = linearScale([0, hi], [H - pad.bottom, pad.top]);
  const slot = (W - pad.left - pad.right) / points.length;
  root.append(svg('line', { class: 'axis', x1: pad.left, x2: W - pad.right, y1: y(0), y2: y(0) }));
  root.append(svg('line', { x1: pad.left, x2: W - pad.right, y1: y(0.5), y2: y(0.5), stroke: 'var(--flip)', 'stroke-dasharray': '4 3' }));
  root.append(svg('text', { x: pad.left - 4, y: y(0.5) + 4, 'text-anchor': 'end' }, '50%'));
  root.append(svg('text', { x: pad.left - 4, y: y(0) + 4, 'text-anchor': 'end' }, '0%'));
  const labelEvery = Math.ceil(points.length / 8);
  points.forEach((p, i) => {
    const x = pad.left + i * slot;
    root.append(
      titled(
        svg('rect', {
          x: x + slot * 0.15,
          y: y(p.ratio),
          width: Math.max(1, slot * 0.7),
          height: y(0) - y(p.ratio),
          fill: p.ratio >= 0.5 ? 'var(--neg)' : 'var(--accent)',
          'data-date': p.date,
          'data-ratio': p.ratio,
        }),
        `${p.date}: ${percent(p.ratio * 100)} of volume sold short`,
      ),
    );
    if (i % labelEvery === 0) root.append(svg('text', { x: x + slot / 2, y: H - 10, 'text-anchor': 'middle' }, p.date.slice(5)));
  });
  return root;
}

const VENUE_COLOURS = ['var(--accent)', 'var(--king)', 'var(--flip)', 'var(--spot)', 'var(--pos)', 'var(--neg)'];

/** Short volume per day, stacked by reporting venue. */
export function venueChart(days: VenueDay[]): { chart: SVGSVGElement; venues: string[]; colours: string[] } {
  const H = 200;
  const pad = { left: 10, right: 10, top: 18, bottom: 28 };
  const venues = [...new Set(days.flatMap((d) => [...d.byVenue.keys()]))];
  const colours = venues.map((_, i) => VENUE_COLOURS[i % VENUE_COLOURS.length] ?? 'var(--accent)');
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': 'Short volume by venue', 'data-chart': 'venues' });
  const totals = days.map((d) => [...d.byVenue.values()].reduce((a, b) => a + b, 0));
  const y = linearScale([0, Math.max(...totals, 1)], [H - pad.bottom, pad.top]);
  const slot = (W - pad.left - pad.right) / Math.max(days.length, 1);
  const peak = Math.max(...totals, 0);
  root.append(svg('text', { x: pad.left, y: pad.top - 2 }, `${(peak / 1e6).toFixed(1)}M shares`));
  days.forEach((day, i) => {
    let base = 0;
    venues.forEach((venue, v) => {
      const value = day.byVenue.get(venue) ?? 0;
      root.append(
        titled(
          svg('rect', {
            x: pad.left + i * slot + slot * 0.15,
            y: y(base + value),
            width: Math.max(1, slot * 0.7),
            height: y(base) - y(base + value),
            fill: colours[v],
            'data-date': day.date,
            'data-venue': venue,
          }),
          `${day.date} ${venue}: ${value.toLocaleString('en-US')} shares short`,
        ),
      );
      base += value;
    });
    if (i % Math.ceil(days.length / 8) === 0)
      root.append(svg('text', { x: pad.left + i * slot + slot / 2, y: H - 10, 'text-anchor': 'middle' }, day.date.slice(5)));
  });
  return { chart: root, venues, colours };
}
