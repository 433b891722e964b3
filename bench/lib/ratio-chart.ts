/**
 * A horizontal bar chart of full-stack / ceiling ratios, each with its target as a marker line, as a standalone SVG
 * (xmlns, width, height, viewBox) that GitHub shows through a Markdown image link. Plain strings: it is small.
 */

export interface ChartBar {
  name: string;
  /** full stack / ceiling, 1 = 100% */
  ratio: number;
  /** Minimum ratio; null when the results carry none (the bar is then neutral). */
  target: number | null;
}

const ROW = 26;
const BAR = 16;
const TOP = 56;
const LEFT = 12;
const PLOT_WIDTH = 440;
const VALUE_ROOM = 64;
/** Average advance of a 12 px sans-serif character, for the label column's width. */
const CHAR_WIDTH = 6.8;
const COLOURS = { pass: '#2da44e', fail: '#cf222e', none: '#8c959f', target: '#1f2328', grid: '#d0d7de', text: '#1f2328' };

export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
}

const num = (n: number) => String(Math.round(n * 10) / 10);
const percent = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;

/** The axis runs to 100% or past the largest ratio or target, in steps that give at most about ten ticks. */
function axis(bars: ChartBar[]): { maxPct: number; stepPct: number } {
  const largest = Math.max(100, ...bars.flatMap((b) => [b.ratio * 100, (b.target ?? 0) * 100]));
  const stepPct = 10 * Math.ceil(largest / 100);
  return { maxPct: Math.ceil(largest / stepPct) * stepPct, stepPct };
}

export function renderRatioChart(bars: ChartBar[], title: string): string {
  const labelWidth = Math.ceil(Math.max(0, ...bars.map((b) => b.name.length)) * CHAR_WIDTH) + 12;
  const plotX = LEFT + labelWidth;
  const width = plotX + PLOT_WIDTH + VALUE_ROOM;
  const plotBottom = TOP + bars.length * ROW;
  const height = plotBottom + 78;
  const { maxPct, stepPct } = axis(bars);
  const x = (ratio: number) => plotX + (ratio * 100 * PLOT_WIDTH) / maxPct;

  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" font-family="-apple-system, 'Segoe UI', Helvetica, Arial, sans-serif" font-size="12">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${LEFT}" y="22" font-size="14" font-weight="600" fill="${COLOURS.text}">${escapeXml(title)}</text>`,
  ];
  for (let pct = 0; pct <= maxPct; pct += stepPct) {
    const at = num(x(pct / 100));
    parts.push(
      `<line class="grid" x1="${at}" y1="${TOP - 6}" x2="${at}" y2="${plotBottom}" stroke="${COLOURS.grid}" stroke-width="1"/>`,
      `<text x="${at}" y="${plotBottom + 16}" text-anchor="middle" fill="${COLOURS.text}">${pct}%</text>`,
    );
  }
  parts.push(
    `<text x="${plotX - 8}" y="${TOP - 10}" text-anchor="end" font-weight="600" fill="${COLOURS.text}">scenario</text>`,
    `<line x1="${plotX}" y1="${plotBottom}" x2="${plotX + PLOT_WIDTH}" y2="${plotBottom}" stroke="${COLOURS.text}" stroke-width="1"/>`,
  );
  bars.forEach((bar, i) => {
    const top = TOP + i * ROW + (ROW - BAR) / 2;
    const state = bar.target === null ? 'none' : bar.ratio >= bar.target ? 'pass' : 'fail';
    const end = x(bar.ratio);
    parts.push(
      `<text x="${plotX - 8}" y="${num(top + BAR - 4)}" text-anchor="end" fill="${COLOURS.text}">${escapeXml(bar.name)}</text>`,
      `<rect class="bar ${state}" x="${plotX}" y="${num(top)}" width="${num(end - plotX)}" height="${BAR}" fill="${COLOURS[state]}"/>`,
    );
    if (bar.target !== null) {
      const at = num(x(bar.target));
      parts.push(`<line class="target" x1="${at}" y1="${num(top - 3)}" x2="${at}" y2="${num(top + BAR + 3)}" stroke="${COLOURS.target}" stroke-width="2.5"/>`);
    }
    // Haloed and drawn last, so a target marker just past the bar does not strike the value through.
    parts.push(`<text x="${num(end + 4)}" y="${num(top + BAR - 4)}" fill="${COLOURS.text}" stroke="#ffffff" stroke-width="3" paint-order="stroke">${percent(bar.ratio)}</text>`);
  });
  const legendY = plotBottom + 56;
  parts.push(
    `<text x="${num(plotX + PLOT_WIDTH / 2)}" y="${plotBottom + 36}" text-anchor="middle" fill="${COLOURS.text}">full stack ÷ ceiling (throughput, same run)</text>`,
    `<rect x="${plotX}" y="${legendY - 10}" width="12" height="12" fill="${COLOURS.pass}"/>`,
    `<text x="${plotX + 18}" y="${legendY}" fill="${COLOURS.text}">meets its target</text>`,
    `<rect x="${plotX + 130}" y="${legendY - 10}" width="12" height="12" fill="${COLOURS.fail}"/>`,
    `<text x="${plotX + 148}" y="${legendY}" fill="${COLOURS.text}">below its target</text>`,
    `<line x1="${plotX + 266}" y1="${legendY - 12}" x2="${plotX + 266}" y2="${legendY + 3}" stroke="${COLOURS.target}" stroke-width="2.5"/>`,
    `<text x="${plotX + 274}" y="${legendY}" fill="${COLOURS.text}">target</text>`,
    '</svg>',
  );
  return `${parts.join('\n')}\n`;
}
