import pino from 'pino';
import { currentLogContext } from './log-context';
import { activeTraceFields } from './tracing';

/**
 * Properties of Sequelize and pg errors that carry row values rather than the statement's shape: bind
 * parameters, a unique violation's key values and instance, pg's `detail` ("Key (slug)=(acme) already exists",
 * "Failing row contains (…)").
 */
const VALUE_KEYS = new Set(['parameters', 'bind', 'fields', 'value', 'instance', 'detail']);

/** Quoted literals, as Sequelize inlines values into the SQL it builds (and E'' strings). */
const SQL_LITERAL = /\b[Ee]'(?:[^'\\]|\\.|'')*'|'(?:[^']|'')*'/g;

const MAX_DEPTH = 6;

/** A copy without value-carrying properties; `ancestors` stops a cycle, the depth a runaway object graph. */
function shapeOnly(value: unknown, depth: number, ancestors: Set<object>): unknown {
  if (!value || typeof value !== 'object') return value;
  if (ancestors.has(value) || depth > MAX_DEPTH) return '[omitted]';
  ancestors.add(value);
  let out: unknown;
  if (Array.isArray(value)) {
    out = value.map((item) => shapeOnly(item, depth + 1, ancestors));
  } else {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (VALUE_KEYS.has(key)) continue;
      copy[key] = key === 'sql' && typeof item === 'string' ? item.replace(SQL_LITERAL, "'?'") : shapeOnly(item, depth + 1, ancestors);
    }
    out = copy;
  }
  ancestors.delete(value);
  return out;
}

/**
 * pino's error serializer, keeping a database error's statement shape (`sql` with its literals masked) and
 * dropping the values it was run with: tenant data stays out of the logs. Takes an error or, under pino-http's
 * wrapper, the standard serializer's output.
 */
export function serializeError(err: unknown): unknown {
  return shapeOnly(err instanceof Error ? pino.stdSerializers.err(err) : err, 0, new Set());
}

/**
 * One pino logger per process, writing to stdout unless given `destination`; secrets in headers and bodies
 * are redacted before any line is written, and errors are serialised by `serializeError`. Every line carries the
 * active span's `trace_id` and `span_id` and the flow's log context (lib/log-context.ts: the request id, and in the
 * worker the workflow and run an activity works for).
 */
export function createLogger(level: string, name: string, destination?: pino.DestinationStream): pino.Logger {
  const options: pino.LoggerOptions = {
    level,
    name,
    serializers: { err: serializeError },
    mixin: () => ({ ...currentLogContext(), ...activeTraceFields() }),
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]', 'headers.authorization', '*.secret', '*.value', '*.password', 'secretKey', 'liveSecretKey', 'bankAccountNumber', '*.bankAccountNumber'],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

export type Logger = pino.Logger;
