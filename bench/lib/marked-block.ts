/** The README's generated bench summary sits between these two lines; everything around them is left as it is. */
export const SUMMARY_START = '<!-- bench-summary:start -->';
export const SUMMARY_END = '<!-- bench-summary:end -->';

/** `text` with what lies between the markers replaced by `block`; throws unless each marker is there exactly once, in order. */
export function replaceMarkedBlock(text: string, block: string, start = SUMMARY_START, end = SUMMARY_END): string {
  const count = (marker: string) => text.split(marker).length - 1;
  for (const marker of [start, end]) {
    if (count(marker) !== 1) throw new Error(`expected the marker ${marker} once, found it ${count(marker)} times`);
  }
  const from = text.indexOf(start) + start.length;
  const to = text.indexOf(end);
  if (to < from) throw new Error(`the marker ${end} comes before ${start}`);
  return `${text.slice(0, from)}\n${block.trim()}\n${text.slice(to)}`;
}
