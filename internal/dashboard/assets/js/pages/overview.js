// Overview: sends and outcomes over the last 30 days (an inline SVG chart
// from /stats), the suppression count, domains needing attention.
import { h, svg, link, badge } from '../dom.js';
import { get } from '../api.js';
import { t, lang } from '../i18n.js';

const SERIES = [['sent', '#2563eb'], ['delivered', '#15803d'], ['bounced', '#b45309'], ['complained', '#b91c1c'], ['opened', '#7c3aed'], ['clicked', '#0e7490']];

export async function render(ctx) {
  const end = new Date();
  const start = new Date(end.getTime() - 29 * 86400e3);
  start.setUTCHours(0, 0, 0, 0);
  const [stats, domains, supp] = await Promise.all([
    get('/stats?granularity=day&startDate=' + start.toISOString() + '&endDate=' + end.toISOString()),
    get('/domains'),
    get('/suppressions?status=active&limit=100').catch(() => null),
  ]);
  const totals = stats.totals || {};
  const attention = (domains.domains || []).filter(d => d.status !== 'verified');
  // Counted from the first page only: "100+" rather than a COUNT over all.
  const suppCount = supp ? (supp.suppressions || []).length + (supp.nextCursor ? '+' : '') : '—';
  ctx.main.append(
    h('h1', {}, t('nav.overview')),
    h('div', { class: 'tiles' },
      SERIES.map(([k]) => h('div', { class: 'tile' }, h('span', { class: 'tile-label' }, t('stats.' + k)), h('span', { class: 'tile-value', 'data-stat': k }, String(totals[k] ?? 0)))),
      h('div', { class: 'tile' }, h('span', { class: 'tile-label' }, t('nav.suppressions')), h('span', { class: 'tile-value', id: 'suppression-count' }, String(suppCount)))),
    h('section', { class: 'card', 'aria-labelledby': 'h-chart' }, h('h2', { id: 'h-chart' }, t('overview.last30')), chart(stats.series || [])),
    h('section', { class: 'card', 'aria-labelledby': 'h-attention' }, h('h2', { id: 'h-attention' }, t('overview.attention')),
      attention.length === 0 ? h('p', { class: 'empty' }, t('overview.allGood')) :
        h('ul', {}, attention.map(d => h('li', {}, link('domains/' + d.id, d.name), ' ', badge(d.status))))));
}

// chart draws one polyline per counter over the days of the series.
function chart(series) {
  const W = 720, H = 240, P = 32;
  const max = Math.max(1, ...series.flatMap(b => SERIES.map(([k]) => b[k] || 0)));
  const x = i => P + (series.length <= 1 ? 0 : i * (W - 2 * P) / (series.length - 1));
  const y = v => H - P - v * (H - 2 * P) / max;
  const fmt = new Intl.DateTimeFormat(lang(), { day: '2-digit', month: '2-digit', timeZone: 'UTC' });
  const g = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'aria-labelledby': 'chart-title' },
    svg('title', { id: 'chart-title' }, t('overview.chartTitle')),
    svg('line', { x1: P, y1: H - P, x2: W - P, y2: H - P, class: 'axis' }),
    svg('line', { x1: P, y1: P, x2: P, y2: H - P, class: 'axis' }),
    svg('text', { x: P - 4, y: P + 4, 'text-anchor': 'end', class: 'tick' }, String(max)),
    svg('text', { x: P - 4, y: H - P, 'text-anchor': 'end', class: 'tick' }, '0'));
  if (series.length) {
    g.append(svg('text', { x: P, y: H - 8, class: 'tick' }, fmt.format(new Date(series[0].date))));
    g.append(svg('text', { x: W - P, y: H - 8, 'text-anchor': 'end', class: 'tick' }, fmt.format(new Date(series[series.length - 1].date))));
  }
  for (const [k, color] of SERIES) {
    g.append(svg('polyline', { fill: 'none', stroke: color, 'stroke-width': 2, points: series.map((b, i) => `${x(i)},${y(b[k] || 0)}`).join(' ') }));
  }
  const legend = h('ul', { class: 'legend' }, SERIES.map(([k, color]) => h('li', {}, svg('svg', { width: 12, height: 12, 'aria-hidden': 'true' }, svg('rect', { width: 12, height: 12, fill: color })), ' ', t('stats.' + k))));
  return h('div', { class: 'chart-wrap' }, g, legend);
}
