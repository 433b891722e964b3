const SLUG_MAX = 80;

/**
 * Lowercase, hyphen-separated, other non-alphanumerics stripped: "Café Deluxe, 2nd Ed." → "cafe-deluxe-2nd-ed".
 * `fallback` names what the slug is of, for a name with (almost) nothing alphanumeric.
 */
export function slugify(name: string, fallback = 'product'): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[\s_-]+/g, '-')
    .replace(/[^a-z0-9-]/g, '')
    .replace(/-{2,}/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, SLUG_MAX)
    .replace(/-$/, '');
  // A name with (almost) nothing alphanumeric still needs a 2-character slug.
  if (slug.length >= 2) return slug;
  return slug ? `${fallback}-${slug}` : fallback;
}

let lastSuffixMicros = 0;

/**
 * The collision suffix: the current time in microseconds, base 36. Strictly increasing within the process, so
 * two creates in one millisecond here never pick the same slug; a clash with another process is retried.
 */
export function withTimestampSuffix(base: string): string {
  const micros = Math.max(Math.floor((performance.timeOrigin + performance.now()) * 1000), lastSuffixMicros + 1);
  lastSuffixMicros = micros;
  const suffix = micros.toString(36);
  return `${base.slice(0, SLUG_MAX - suffix.length - 1).replace(/-$/, '')}-${suffix}`;
}
