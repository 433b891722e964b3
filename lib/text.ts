import { z } from 'zod';

/**
 * The one rule for free text in every request: what characters a string may hold. PostgreSQL text and jsonb
 * cannot store NUL at all (a NUL in a jsonb value was a 500, in a text column it was stored as `\0`), and
 * other control characters have no legitimate use in a name, a label or a URL.
 *
 * Validation uses plain character-class tests (linear, whatever the length); the same classes are published
 * as the OpenAPI `pattern`, so a client generator refuses what the server refuses.
 */

// Character-class bodies, written as regex source so the OpenAPI pattern and the check are the same text.
/** C0 controls except TAB, LF and CR; DEL; C1 controls. */
const CONTROLS = '\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F';
/** TAB, LF, CR and the Unicode line and paragraph separators: a single-line value has no line breaks. */
const LINE_BREAKS = '\\u0009\\u000A\\u000D\\u2028\\u2029';
/**
 * Bidirectional formatting controls (ALM, LRM, RLM, LRE…RLO, LRI…PDI): an RLO makes `invoice\u202Efdp.exe`
 * display as `invoiceexe.pdf`. Refused in single-line values (names, file names, tags, URLs), where they
 * only serve spoofing; free prose keeps them, since right-to-left text uses the marks legitimately.
 */
const BIDI = '\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069';

/**
 * What String.prototype.trim removes (ECMAScript WhiteSpace and LineTerminator), spelled out: `\s` means
 * other sets in other regex engines (Python's adds U+001C–U+001F, lacks U+FEFF), and client generators read the pattern.
 */
export const WHITESPACE = '\\u0009-\\u000D\\u0020\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF';

const SINGLE_LINE_FORBIDDEN = `${CONTROLS}${LINE_BREAKS}${BIDI}`;
const MULTI_LINE_FORBIDDEN = CONTROLS;

/** One character a single-line value may hold, as a regex (for patterns that add their own shape, e.g. a URL's scheme). */
export const SINGLE_LINE_CHAR = `[^${SINGLE_LINE_FORBIDDEN}]`;

const SINGLE_LINE_BAD = new RegExp(`[${SINGLE_LINE_FORBIDDEN}]`);
const MULTI_LINE_BAD = new RegExp(`[${MULTI_LINE_FORBIDDEN}]`);

/** Whether a value is acceptable as single-line text: no control, line-break or bidi character. */
const isSingleLine = (value: string) => !SINGLE_LINE_BAD.test(value);

/** Whether a value is acceptable as multi-line text: no control character other than TAB, LF and CR. */
const isMultiLine = (value: string) => !MULTI_LINE_BAD.test(value);

const SINGLE_LINE_MESSAGE = 'must be a single line without control characters or bidirectional formatting characters';
const MULTI_LINE_MESSAGE = 'must not contain control characters (NUL included) other than tab and line breaks';

/** Characters as people count them (code points), the same count as PostgreSQL's char_length. */
const charLength = (value: string) => [...value].length;

export interface TextOptions {
  /** Most characters as sent (before trimming), counted as code points. */
  max: number;
  /** Fewest characters after trimming (default 0). Over 0, a value of only whitespace is refused. */
  min?: number;
  /** Trim surrounding whitespace before the character check, the minimum and storage (default true for single-line, false for multi-line). */
  trim?: boolean;
}

/**
 * The OpenAPI pattern: allowed characters only; when trimmed, any whitespace around them too (it is removed
 * before the check); and for a required trimmed value at least one character that is not whitespace (so
 * `"   "`, refused after trimming, is outside the documented schema too).
 */
function pattern(forbidden: string, trim: boolean, nonBlank: boolean): string {
  const allowed = `[^${forbidden}]*`;
  const core = nonBlank ? `${allowed}[^${WHITESPACE}${forbidden}]${allowed}` : allowed;
  return trim ? `^[${WHITESPACE}]*${core}[${WHITESPACE}]*$` : `^${core}$`;
}

function text(kind: 'single' | 'multi', { max, min = 0, trim = kind === 'single' }: TextOptions) {
  const [allowed, message, forbidden] =
    kind === 'single' ? [isSingleLine, SINGLE_LINE_MESSAGE, SINGLE_LINE_FORBIDDEN] : [isMultiLine, MULTI_LINE_MESSAGE, MULTI_LINE_FORBIDDEN];
  // The maximum counts the value as sent, as JSON Schema's maxLength does; surrounding whitespace (a trailing
  // newline included) is then trimmed away before the character check and the minimum, not refused.
  const sized = z.string().refine((v) => charLength(v) <= max, `must be at most ${max} characters`);
  return (trim ? sized.trim() : sized)
    .refine(allowed, message)
    .refine((v) => charLength(v) >= min, min === 1 ? 'must not be empty' : `must be at least ${min} characters`)
    .meta({ ...(min > 0 ? { minLength: min } : {}), maxLength: max, pattern: pattern(forbidden, trim, trim && min > 0) });
}

/** A name, label, tag, identifier or URL: no control, line-break or bidi character; trimmed unless `trim: false`. */
export const singleLine = (options: TextOptions) => text('single', options);

/** Prose such as a description or a quote: line breaks and tabs allowed, other controls (NUL included) refused; kept as sent unless `trim: true`. */
export const multiLine = (options: TextOptions) => text('multi', options);

/**
 * Keys JSON.parse creates as own properties but that object spread, `Object.assign` and plain property writes
 * treat as the prototype (`__proto__`: zod's record drops it without a word) or that shadow Object.prototype
 * members other code reads (`constructor`, `prototype`). Refused as map keys.
 */
const RESERVED_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

const RESERVED_MESSAGE = `must not be ${RESERVED_KEYS.join(', ')}`;

/**
 * A string-to-value map whose keys are single-line, 1..keyMax characters as sent and not reserved, with at
 * most maxKeys entries. `__proto__` is caught before the record parses, since the record would drop it.
 */
export function stringMap<V extends z.ZodType>({ keyMax, maxKeys, value }: { keyMax: number; maxKeys: number; value: V }) {
  const key = singleLine({ min: 1, max: keyMax, trim: false }).refine((k) => !(RESERVED_KEYS as readonly string[]).includes(k), RESERVED_MESSAGE);
  return z
    .preprocess(
      (input, ctx) => {
        if (input !== null && typeof input === 'object' && Object.hasOwn(input, '__proto__')) {
          ctx.issues.push({ code: 'custom', path: ['__proto__'], message: RESERVED_MESSAGE, input });
        }
        return input;
      },
      z.record(key, value).refine((m) => Object.keys(m).length <= maxKeys, `at most ${maxKeys} keys`),
    )
    .meta({
      maxProperties: maxKeys,
      propertyNames: { minLength: 1, maxLength: keyMax, pattern: pattern(SINGLE_LINE_FORBIDDEN, false, false), not: { enum: [...RESERVED_KEYS] } },
    });
}

/** A value that is empty or only whitespace (what `trim()` empties), documented as such. */
export const blank = () =>
  z
    .string()
    .refine((v) => v.trim() === '', 'must be empty')
    .meta({ pattern: `^[${WHITESPACE}]*$` });

/** An instant in a response: ISO 8601 UTC, as `Date.prototype.toISOString` writes it. */
export const isoTimestamp = z.string().meta({ format: 'date-time' });

const emailFormat = z.email();

/**
 * An e-mail address: at most 320 characters (RFC 5321; document 2's customer limit), trimmed, and an address zod's
 * e-mail rule accepts. That rule admits ASCII only, so no control or bidi character passes; the text rule's
 * pattern is left out of the document, where beside `format: email` it made schema-driven generators (the
 * fuzzer) search for minutes.
 */
export const emailAddress = () =>
  z
    .string()
    .max(320, 'at most 320 characters')
    .trim()
    .refine((v) => emailFormat.safeParse(v).success, 'must be an e-mail address')
    .meta({ format: 'email' });
