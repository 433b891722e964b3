import type { SalesSeries } from '../../domain/checkout';
import { formatMoney } from '../../lib/money';

const WIDTH = 720;
const HEIGHT = 220;
const TOP = 16;
const BOTTOM = 28;
const LEFT = 8;
const RIGHT = 8;

const escapeXml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const SHORT_DAY = new Intl.DateTimeFormat('en', { month: 'short', day: 'numeric', timeZone: 'UTC' });
const dayLabel = (day: string) => SHORT_DAY.format(new Date(`${day}T00:00:00Z`));

/**
 * One currency's daily sales as an SVG bar chart, drawn here on the server: no script, no style attribute (the
 * dashboard's CSP allows neither), colours from the stylesheet's classes. Every text is escaped; each bar carries
 * a `<title>` with its day and amount, and the chart a text alternative naming the window's total.
 */
export function salesChartSvg(series: SalesSeries, id: string): string {
  const max = Math.max(...series.days.map((d) => d.total), 0);
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = plotWidth / series.days.length;
  const barWidth = Math.max(2, slot * 0.7);
  const bars = series.days
    .map((d, i) => {
      const height = max === 0 ? 0 : Math.max(d.total > 0 ? 2 : 0, (d.total / max) * plotHeight);
      const x = LEFT + i * slot + (slot - barWidth) / 2;
      const y = TOP + plotHeight - height;
      const label = `${dayLabel(d.day)}: ${formatMoney(d.total, series.currency)}, ${d.count} ${d.count === 1 ? 'sale' : 'sales'}`;
      return `<rect class="bar" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${barWidth.toFixed(1)}" height="${height.toFixed(1)}"><title>${escapeXml(label)}</title></rect>`;
    })
    .join('');
  const ticks = [0, Math.floor(series.days.length / 2), series.days.length - 1]
    .map((i, n) => {
      const x = LEFT + i * slot + slot / 2;
      const anchor = n === 0 ? 'start' : n === 2 ? 'end' : 'middle';
      return `<text class="tick" x="${(n === 0 ? LEFT : n === 2 ? WIDTH - RIGHT : x).toFixed(1)}" y="${HEIGHT - 8}" text-anchor="${anchor}">${escapeXml(dayLabel(series.days[i]!.day))}</text>`;
    })
    .join('');
  const summary = `Sales per day over the last ${series.days.length} days in ${series.currency}: ${formatMoney(series.total, series.currency)} from ${series.count} ${series.count === 1 ? 'sale' : 'sales'}; the best day ${formatMoney(max, series.currency)}.`;
  return (
    `<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${id}-title" focusable="false">` +
    `<title id="${id}-title">${escapeXml(summary)}</title>` +
    `<line class="axis" x1="${LEFT}" y1="${TOP + plotHeight}" x2="${WIDTH - RIGHT}" y2="${TOP + plotHeight}"></line>` +
    `<text class="tick" x="${LEFT}" y="${TOP - 4}">${escapeXml(formatMoney(max, series.currency))}</text>` +
    `<line class="grid" x1="${LEFT}" y1="${TOP}" x2="${WIDTH - RIGHT}" y2="${TOP}"></line>` +
    bars +
    ticks +
    `</svg>`
  );
}
