import type { SalesSeries } from '../../domain/checkout';
import { formatMoney } from '../../lib/money';

// The plot's own units: the SVG stretches to the panel's width and a fixed height (preserveAspectRatio="none"),
// so the labels are HTML beside it, readable at any width, and never scaled with the bars.
const WIDTH = 300;
const HEIGHT = 100;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const SHORT_DAY = new Intl.DateTimeFormat('en', { month: 'short', day: 'numeric', timeZone: 'UTC' });
const dayLabel = (day: string) => SHORT_DAY.format(new Date(`${day}T00:00:00Z`));

/**
 * One currency's daily sales as an SVG bar chart, drawn here on the server: no script, no style attribute (the
 * dashboard's CSP allows neither), colours from the stylesheet's classes. Every text is escaped; each bar carries
 * a `<title>` with its day, amount and count, and the chart a text alternative naming the window's total.
 */
export function salesChartSvg(series: SalesSeries, id: string): string {
  const max = Math.max(...series.days.map((d) => d.total), 0);
  const slot = WIDTH / series.days.length;
  const barWidth = slot * 0.7;
  const bars = series.days
    .map((d, i) => {
      const height = max === 0 ? 0 : Math.max(d.total > 0 ? 1 : 0, (d.total / max) * HEIGHT);
      const x = i * slot + (slot - barWidth) / 2;
      const label = `${dayLabel(d.day)}: ${formatMoney(d.total, series.currency)}, ${d.count} ${d.count === 1 ? 'sale' : 'sales'}`;
      return `<rect class="bar" x="${x.toFixed(2)}" y="${(HEIGHT - height).toFixed(2)}" width="${barWidth.toFixed(2)}" height="${height.toFixed(2)}"><title>${escapeHtml(label)}</title></rect>`;
    })
    .join('');
  const days = series.days;
  const ticks = [days[0]!, days[Math.floor(days.length / 2)]!, days[days.length - 1]!].map((d) => `<span>${escapeHtml(dayLabel(d.day))}</span>`).join('');
  const summary = `Sales per day over the last ${days.length} days in ${series.currency}: ${formatMoney(series.total, series.currency)} from ${series.count} ${series.count === 1 ? 'sale' : 'sales'}; the best day ${formatMoney(max, series.currency)}.`;
  return (
    `<p class="chart-max" aria-hidden="true">${escapeHtml(formatMoney(max, series.currency))}</p>` +
    `<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" preserveAspectRatio="none" role="img" aria-labelledby="${id}-title" focusable="false">` +
    `<title id="${id}-title">${escapeHtml(summary)}</title>` +
    `<line class="grid" x1="0" y1="0.5" x2="${WIDTH}" y2="0.5" vector-effect="non-scaling-stroke"></line>` +
    bars +
    `<line class="axis" x1="0" y1="${HEIGHT}" x2="${WIDTH}" y2="${HEIGHT}" vector-effect="non-scaling-stroke"></line>` +
    `</svg>` +
    `<p class="chart-days" aria-hidden="true">${ticks}</p>`
  );
}
