/** The two pictures of the dealer view: net GEX by strike, and a session's levels over time. */
import { linearScale, svg, titled } from '../shared/dom.js';
import { clock, dollars, price } from '../shared/format.js';
import { hourTicks, sessionMinutes, type Levels, type Snapshot } from './model.js';

const W = 640;
const H = 284;
/** The top band holds the spot, flip and king labels, one row each, clear of the wall labels. */
const PAD = { left: 56, right: 12, top: 50, bottom: 34 };

/** A label's width in the chart's units: 10 px text (style.css), bold, about 0.62 em a character. */
const labelWidth = (text: string): number => text.length * 6.2;

/**
 * Where a label centred on `x` fits between the axes: left-aligned at the strike axis's
 * start, right-aligned at its end, centred otherwise, so it never runs over the value axis's
 * labels or off the chart.
 */
function fitted(x: number, text: string): { x: number; 'text-anchor': 'start' | 'middle' | 'end' } {
  const half = labelWidth(text) / 2;
  if (x - half < PAD.left) return { x: PAD.left + 2, 'text-anchor': 'start' };
  if (x + half > W - PAD.right) return { x: W - PAD.right - 2, 'text-anchor': 'end' };
  return { x, 'text-anchor': 'middle' };
}

interface Marker {
  key: 'spot' | 'flip' | 'king';
  label: string;
  value: number | undefined;
  colour: string;
  dash?: string;
}

/** Bars of net GEX per strike around spot, with spot, flip and king as vertical lines. */
export function gexBars(snapshot: Snapshot): SVGSVGElement {
  const root = svg('svg', {
    viewBox: `0 0 ${W} ${H}`,
    role: 'img',
    'aria-label': `Net GEX by strike at ${snapshot.at}`,
    'data-chart': 'gex',
  });
  const strikes = snapshot.strikes;
  if (strikes.length === 0) return root;
  const lo = strikes[0]?.strike ?? 0;
  const hi = strikes[strikes.length - 1]?.strike ?? 1;
  const step = strikes.length > 1 ? (hi - lo) / (strikes.length - 1) : 1;
  const x = linearScale([lo - step / 2, hi + step / 2], [PAD.left, W - PAD.right]);
  const maxAbs = Math.max(...strikes.map((s) => Math.abs(s.netGex)), 1);
  const y = linearScale([-maxAbs, maxAbs], [H - PAD.bottom, PAD.top]);
  const zero = y(0);
  const barWidth = Math.max(2, (x(lo + step) - x(lo)) * 0.72);

  root.append(svg('line', { class: 'axis', x1: PAD.left, x2: W - PAD.right, y1: zero, y2: zero }));
  root.append(svg('text', { x: PAD.left - 6, y: y(maxAbs) + 4, 'text-anchor': 'end', 'data-axis': 'gex' }, dollars(maxAbs)));
  root.append(svg('text', { x: PAD.left - 6, y: y(-maxAbs) + 4, 'text-anchor': 'end', 'data-axis': 'gex' }, dollars(-maxAbs)));

  const walls = new Map<number, string>();
  if (snapshot.callWall !== undefined) walls.set(snapshot.callWall, `Call wall ${price(snapshot.callWall)}`);
  if (snapshot.putWall !== undefined) walls.set(snapshot.putWall, `Put wall ${price(snapshot.putWall)}`);

  const labelEvery = Math.ceil(strikes.length / 9);
  strikes.forEach((s, i) => {
    const top = s.netGex >= 0 ? y(s.netGex) : zero;
    const bar = svg('rect', {
      x: x(s.strike) - barWidth / 2,
      y: top,
      width: barWidth,
      height: Math.max(1, Math.abs(y(s.netGex) - zero)),
      fill: s.netGex >= 0 ? 'var(--pos)' : 'var(--neg)',
      'data-strike': s.strike,
      'data-gex': s.netGex,
      'data-node': s.nodeType,
    });
    root.append(titled(bar, `${price(s.strike)}: ${dollars(s.netGex)}${s.nodeType ? ` (${s.nodeType})` : ''}`));
    if (i % labelEvery === 0)
      root.append(svg('text', { x: x(s.strike), y: H - PAD.bottom + 14, 'text-anchor': 'middle', 'data-axis': 'strike' }, price(s.strike)));
    const wall = walls.get(s.strike);
    if (wall !== undefined) {
      // Past the bar's end, inside the plot: a label under the longest negative bar sat on the
      // strike axis's labels, so one that would not fit below goes above the zero line, where
      // this strike's own bar is not.
      const bottom = top + Math.abs(y(s.netGex) - zero);
      const y0 = s.netGex >= 0 ? Math.max(top - 4, PAD.top - 2) : bottom + 12 <= H - PAD.bottom - 2 ? bottom + 12 : zero - 4;
      root.append(
        svg(
          'text',
          {
            ...fitted(x(s.strike), wall),
            y: y0,
            'data-wall': wall.startsWith('Call') ? 'call' : 'put',
            style: 'font-weight:600;fill:var(--fg)',
          },
          wall,
        ),
      );
    }
  });

  const markers: Marker[] = [
    { key: 'spot', label: 'Spot', value: snapshot.spot, colour: 'var(--spot)' },
    { key: 'flip', label: 'Flip', value: snapshot.flip, colour: 'var(--flip)', dash: '5 3' },
    { key: 'king', label: 'King', value: snapshot.king, colour: 'var(--king)', dash: '2 3' },
  ];
  markers.forEach((m, i) => {
    if (m.value === undefined) return;
    if (m.value < lo - step || m.value > hi + step) {
      // Off the strikes shown (a flip far from spot): labelled at the edge it lies beyond.
      const left = m.value < lo;
      const edge = left ? PAD.left : W - PAD.right;
      root.append(
        svg(
          'text',
          {
            x: edge + (left ? 12 : -12),
            y: 11 + i * 12,
            'text-anchor': left ? 'start' : 'end',
            'data-marker': m.key,
            style: `fill:${m.colour};font-weight:600`,
          },
          `${m.label} ${price(m.value)}`,
        ),
        svg('text', { x: edge, y: 11 + i * 12, 'text-anchor': left ? 'start' : 'end', style: `fill:${m.colour}` }, left ? '◀' : '▶'),
      );
      return;
    }
    const mx = x(m.value);
    root.append(
      svg('line', {
        x1: mx,
        x2: mx,
        y1: PAD.top - 12,
        y2: H - PAD.bottom,
        stroke: m.colour,
        'stroke-width': 1.5,
        'stroke-dasharray': m.dash,
      }),
    );
    const label = `${m.label} ${price(m.value)}`;
    root.append(
      svg('text', { ...fitted(mx, label), y: 11 + i * 12, 'data-marker': m.key, style: `fill:${m.colour};font-weight:600` }, label),
    );
  });
  root.append(svg('text', { x: W - PAD.right, y: H - 4, 'text-anchor': 'end' }, 'strike (USD) · bars: net dealer GEX'));
  return root;
}

interface Series {
  key: keyof Pick<Levels, 'spot' | 'flip' | 'callWall' | 'putWall' | 'king'>;
  label: string;
  colour: string;
  dash?: string;
}

export const TIMELINE_SERIES: Series[] = [
  { key: 'spot', label: 'Spot', colour: 'var(--spot)' },
  { key: 'flip', label: 'Flip', colour: 'var(--flip)', dash: '5 3' },
  { key: 'callWall', label: 'Call wall', colour: 'var(--pos)' },
  { key: 'putWall', label: 'Put wall', colour: 'var(--neg)' },
];

function minutesOf(at: string): number {
  const [h, m] = clock(at).split(':').map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
}

/** One session: spot against flip and walls from the open to its close (13:00 on a half day); a click picks a snapshot. */
export function timeline(rows: Levels[], selectedAt: string | undefined, onPick: (at: string) => void): SVGSVGElement {
  const session = rows[0]?.session ?? '';
  const root = svg('svg', {
    viewBox: `0 0 ${W} 220`,
    role: 'img',
    'aria-label': `Levels through ${session}`,
    'data-chart': 'timeline',
    'data-session': session,
  });
  const points = [...rows].sort((a, b) => (a.at < b.at ? -1 : 1));
  if (points.length === 0) return root;
  const values = points.flatMap((p) => TIMELINE_SERIES.map((s) => p[s.key]).filter((v): v is number => v !== undefined));
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const pad = (hi - lo) * 0.08 || 1;
  const [open, close] = sessionMinutes(session);
  const x = linearScale([open, close], [PAD.left, W - PAD.right]);
  const y = linearScale([lo - pad, hi + pad], [220 - 26, 10]);

  root.append(svg('line', { class: 'axis', x1: PAD.left, x2: W - PAD.right, y1: 220 - 26, y2: 220 - 26 }));
  for (const hour of hourTicks([open, close]))
    root.append(svg('text', { x: x(hour * 60), y: 220 - 10, 'text-anchor': 'middle', 'data-axis': 'time' }, `${hour}:00`));
  root.append(svg('text', { x: PAD.left - 6, y: y(hi) + 4, 'text-anchor': 'end' }, price(hi)));
  root.append(svg('text', { x: PAD.left - 6, y: y(lo) + 4, 'text-anchor': 'end' }, price(lo)));

  for (const series of TIMELINE_SERIES) {
    const path = points
      .filter((p) => p[series.key] !== undefined)
      .map((p, i) => `${i === 0 ? 'M' : 'L'}${x(minutesOf(p.at)).toFixed(1)},${y(p[series.key] ?? 0).toFixed(1)}`)
      .join('');
    if (path)
      root.append(
        svg('path', {
          d: path,
          fill: 'none',
          stroke: series.colour,
          'stroke-width': 1.6,
          'stroke-dasharray': series.dash,
          'data-series': series.key,
        }),
      );
  }
  for (const p of points) {
    const selected = p.at === selectedAt;
    const dot = svg('circle', {
      cx: x(minutesOf(p.at)),
      cy: y(p.spot),
      r: selected ? 4.5 : 2.2,
      fill: selected ? 'var(--fg)' : 'var(--spot)',
      'data-at': p.at,
      'data-session': p.session,
      style: 'cursor:pointer',
    });
    titled(dot, `${clock(p.at)} spot ${price(p.spot)}${p.flip !== undefined ? ` · flip ${price(p.flip)}` : ''}`);
    dot.addEventListener('click', () => onPick(p.at));
    root.append(dot);
  }
  return root;
}
