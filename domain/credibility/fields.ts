import { z } from 'zod';
import { isId } from '../../lib/ids';
import { blank, isoTimestamp, multiLine, singleLine, WHITESPACE } from '../../lib/text';

// Field rules shared by portfolio items, testimonials and certifications (document 1, resource tables).

export const MAX_URL_LENGTH = 2048;
export const MAX_SORT_ORDER = 2_147_483_647; // PostgreSQL integer: a larger value would fail in the database

/** A single-line name or label: trimmed, then 1..max characters. */
export const requiredText = (max: number) => singleLine({ min: 1, max });

/** Free text kept exactly as sent (line breaks and indentation matter): 0..max characters. */
export const longText = (max: number) => multiLine({ max });

/** A required text such as a quote: trimmed, 1..max characters, line breaks allowed. */
export const requiredLongText = (max: number) => multiLine({ min: 1, max, trim: true });

/**
 * A nullable field where `""` (or only whitespace) and null both clear the value, as document 1 states
 * for externalUrl, clientName and authorRole. A union, so the document shows the blank form beside the
 * value's own rules (which say at least one character).
 */
export function clearable<S extends z.ZodType<string, string>>(schema: S) {
  return z.union([schema.nullable(), blank().transform(() => null)]);
}

export const optionalText = (max: number) => clearable(requiredText(max));

function parsesWithHost(value: string): boolean {
  try {
    return new URL(value).hostname !== '';
  } catch {
    return false;
  }
}

/** `/path` on the storefront's own origin; `//host` and `/\host` would leave it, so they are refused. */
function isRootRelative(value: string): boolean {
  return value.startsWith('/') && !value.startsWith('//') && !value.includes('\\');
}

function url(message: string, accept: (value: string) => boolean, description: string) {
  return singleLine({ min: 1, max: MAX_URL_LENGTH })
    .refine(accept, message)
    .meta({ format: 'uri-reference', description });
}

/** An image: an http(s) URL or a root-relative path. `blob:` and `data:` (and every other scheme) are refused. */
export const imageUrl = url(
  'must be an http(s) URL or a root-relative path such as /images/a.png; blob: and data: URLs are not accepted',
  (v) => isRootRelative(v) || (/^https?:\/\//i.test(v) && parsesWithHost(v)),
  'http(s) URL or root-relative path, at most 2048 characters; blob: and data: URLs are refused',
);

/** An absolute `http://` or `https://` URL with a host (a blog post's cover image, shown off-site in feeds too). */
export const webUrl = url('must be an http(s) URL', (v) => /^https?:\/\//i.test(v) && parsesWithHost(v), 'http(s) URL, at most 2048 characters');

/** A link a buyer follows off-site: `https://` only. */
export const httpsUrl = url('must be an https:// URL', (v) => /^https:\/\//i.test(v) && parsesWithHost(v), 'https:// URL, at most 2048 characters');

const ISO_8601 = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?)?)?$/;
// Years 1 to 9999 (Date.UTC would read year 1 as 1901); PostgreSQL and JavaScript disagree on BC years.
const EARLIEST = new Date(0).setUTCFullYear(1, 0, 1);
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * ISO 8601 calendar dates at any precision (`2024`, `2024-05`, `2024-05-31`) or date-times with an optional
 * offset (`2024-05-31T09:30:00+07:00`; none means UTC). Impossible dates such as `2023-02-30` are refused,
 * which `Date.parse` would silently roll over.
 */
export function parseIsoDate(value: string): Date | null {
  const m = ISO_8601.exec(value);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = [m[1], m[2] ?? '01', m[3] ?? '01', m[4] ?? '00', m[5] ?? '00', m[6] ?? '00'].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const millis = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  const local = new Date(0);
  local.setUTCFullYear(year, month - 1, day);
  local.setUTCHours(hour, minute, second, millis);
  const exists =
    local.getUTCFullYear() === year && local.getUTCMonth() === month - 1 && local.getUTCDate() === day && hour < 24 && minute < 60 && second < 60;
  if (!exists) return null;
  const zone = m[8] ?? 'Z';
  let offsetMinutes = 0;
  if (zone !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    const hours = Number(digits.slice(0, 2));
    const minutes = Number(digits.slice(2));
    if (hours > 23 || minutes > 59) return null;
    offsetMinutes = (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
  }
  const time = local.getTime() - offsetMinutes * 60_000;
  return time >= EARLIEST && time <= LATEST ? new Date(time) : null;
}

export const isoDate = z
  .string()
  .trim()
  .transform((value, ctx) => {
    const date = parseIsoDate(value);
    if (!date) {
      ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 date such as 2024-05-31 or 2024-05-31T09:30:00Z' });
      return z.NEVER;
    }
    return date;
  })
  .meta({
    description: 'ISO 8601 date or date-time (no offset means UTC); returned as an ISO 8601 UTC timestamp',
    // Wider than date-time and date: a year, a month, a time without seconds or offset. Impossible dates are
    // refused by the check above, which a pattern cannot express.
    anyOf: [{ format: 'date-time' }, { format: 'date' }, { pattern: `^[${WHITESPACE}]*${ISO_8601.source.slice(1, -1).replace(/\\d/g, '[0-9]')}[${WHITESPACE}]*$` }],
  });

export const sortOrder = z
  .number()
  .int('must be an integer')
  .min(0, 'must be at least 0')
  .max(MAX_SORT_ORDER, `must be at most ${MAX_SORT_ORDER}`)
  .meta({ description: 'Lists are ordered by sortOrder ascending, then creation time. Default 0.' });

export const published = z.boolean().meta({ description: 'Default true' });

export const rating = z
  .number()
  .int('must be an integer from 1 to 5')
  .min(1, 'must be an integer from 1 to 5')
  .max(5, 'must be an integer from 1 to 5')
  .nullable();

/** A product of the calling workspace and environment; the service checks that it exists and is not archived. */
export const productId = z
  .string()
  .refine((v) => isId(v, 'prod'), 'must be the id of a product in this workspace')
  .nullable()
  .meta({ description: 'Link to one of your products; null clears it. Omitted on PATCH: the link is kept.' });

/** Response fields every credibility record carries besides its own. */
export const recordBase = {
  id: z.string(),
  accountId: z.string(),
  createdAt: isoTimestamp,
  updatedAt: isoTimestamp,
};
