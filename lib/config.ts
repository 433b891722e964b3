import path from 'node:path';
import { z } from 'zod';
import { createKeyRing, encryptionKeyId, parseEncryptionKey, type KeyRing } from './crypto-box';
import { parseMailbox } from './email/address';
import type { TracingSettings } from './tracing-setup';

/** Parses a duration such as `90s`, `5m`, `2h` or `1d` into milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+)(s|m|h|d)$/.exec(text.trim());
  if (!match) throw new Error(`"${text}" is not a duration like 30s, 5m, 2h or 1d`);
  const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}

const booleanFlag = z.enum(['true', 'false']).transform((v) => v === 'true');

const durationList = z.string().transform((value, ctx) => {
  try {
    const list = value.split(',').map(parseDuration);
    if (list.length === 0) throw new Error('at least one duration is needed');
    return list;
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
    return z.NEVER;
  }
});

const duration = z.string().transform((value, ctx) => {
  try {
    return parseDuration(value);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
    return z.NEVER;
  }
});

/** At most 30 days: money held longer than that is not "in settlement" any more. 0s settles at once. */
const settlementDelay = duration.pipe(z.number().max(30 * 86_400_000, 'must be at most 30d'));

const postgresUrl = z
  .string()
  .refine((v) => /^postgres(ql)?:\/\//.test(v), 'must be a postgres:// or postgresql:// URL');

const encryptionKey = z.string().transform((value, ctx) => {
  try {
    return parseEncryptionKey(value);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
    return z.NEVER;
  }
});

/** Keys rotated out: comma-separated, each as ENCRYPTION_KEY takes it; they only open what they sealed before. */
const retiredEncryptionKeys = z.string().transform((value, ctx) => {
  const keys: Buffer[] = [];
  value.split(',').map((part) => part.trim()).forEach((part, i) => {
    try {
      keys.push(parseEncryptionKey(part));
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: `key ${i + 1} of the list ${(err as Error).message}` });
    }
  });
  return keys;
});

/** Browser origins (scheme, host, port; no path) allowed to call the codec endpoint, comma-separated. */
const originList = z.string().transform((value, ctx) =>
  value.split(',').map((part) => part.trim()).filter((origin) => {
    const ok = /^https?:\/\/[^/\s]+$/.test(origin) && URL.canParse(origin) && new URL(origin).origin === origin;
    if (!ok) ctx.addIssue({ code: 'custom', message: `"${origin}" is not an origin like http://localhost:8233 (scheme, host and port, no path or trailing slash)` });
    return ok;
  }),
);

const schema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  DATA_DIR: z.string().min(1).default('./.data'),
  DATABASE_URL: postgresUrl.optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  TEMPORAL_ADDRESS: z
    .string()
    .regex(/^[^:\s]+:\d{1,5}$/, 'must be host:port')
    .default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('commerce'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** The API's own listener for Prometheus (GET /metrics), never PORT; unset = none (`npm start` sets one); 0 picks a free port. */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** The worker's own listener for orchestrators: probes (/healthz, /readyz) and Prometheus (/metrics); 0 picks a free port. */
  WORKER_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(3001),
  /**
   * Workflows the worker keeps in memory between their tasks (Temporal's sticky cache). The SDK's default grows with
   * the heap limit (about 2,300 on a 4 GB heap, some 0.6 MB each); an evicted workflow replays its history on its
   * next task, and every long-lived workflow here continues as new each cycle, so that replay stays short.
   */
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).default(500),
  /** A prebuilt workflow bundle (`npm run build` writes dist/workflow-bundle.js, the compiled worker's default). */
  WORKFLOW_BUNDLE_PATH: z.string().min(1).optional(),
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  SMTP_URL: z
    .string()
    .refine((v) => /^smtps?:\/\/[^\s]+$/.test(v), 'must be an smtp:// or smtps:// URL')
    .optional(),
  /** Sender of every buyer e-mail, `Name <address>` or a bare address; its domain names the Message-IDs. */
  EMAIL_FROM: z
    .string()
    .refine((v) => parseMailbox(v) !== null, 'must be one e-mail address, e.g. "Shop <no-reply@shop.example>"')
    .default('Commerce Service <no-reply@localhost>'),
  /** Where blobs live: `local` (under FILE_STORAGE_DIR, one host's disk) or `s3` (a bucket every API and worker host shares). */
  FILE_STORAGE: z.enum(['local', 's3']).default('local'),
  FILE_STORAGE_DIR: z.string().min(1).optional(),
  S3_BUCKET: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{1,253}[A-Za-z0-9]$/, 'must be a bucket name such as commerce-files (no s3:// and no path)')
    .optional(),
  S3_REGION: z.string().regex(/^[a-z]{2}(-[a-z0-9]+)+$/, 'must be a region such as eu-central-1 or us-east-1').optional(),
  /** An S3-compatible server (SeaweedFS, Ceph, R2, …); unset = AWS S3 itself. */
  S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  S3_FORCE_PATH_STYLE: booleanFlag.default(false),
  /** How long a deleted product file's blob is kept before the file-cleanup workflow removes it. */
  FILE_CLEANUP_DELAY: duration.default(parseDuration('5m')),
  /**
   * How long a completed session's amount stays `pending` before it becomes `available` (ARCHITECTURE.md,
   * Settlement): SETTLEMENT_DELAY in live, TEST_SETTLEMENT_DELAY in test.
   */
  SETTLEMENT_DELAY: settlementDelay.default(parseDuration('2d')),
  TEST_SETTLEMENT_DELAY: settlementDelay.default(parseDuration('1m')),
  /**
   * How often the settlement sweep (a Temporal Schedule the worker keeps) releases due credits: a credit becomes
   * available at most about this long after its due time.
   */
  SETTLEMENT_SWEEP_INTERVAL: duration.pipe(z.number().min(1_000, 'must be at least 1s').max(3_600_000, 'must be at most 1h')).default(10_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Tracing (docs/tracing.md): `none` installs nothing; `otlp` sends spans to OTEL_EXPORTER_OTLP_ENDPOINT. */
  OTEL_TRACES_EXPORTER: z.enum(['none', 'otlp'], { message: 'must be none or otlp' }).default('none'),
  /** The OTLP/HTTP collector's base URL; spans go to its /v1/traces. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/ }).default('http://localhost:4318'),
  OTEL_EXPORTER_OTLP_PROTOCOL: z.enum(['http/protobuf', 'http/json'], { message: 'must be http/protobuf or http/json (gRPC is not supported)' }).default('http/protobuf'),
  /** The `service.name` of the spans; unset = commerce-api for the API, commerce-worker for the worker. */
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  WEBHOOK_ALLOW_PRIVATE_URLS: booleanFlag.default(false),
  WEBHOOK_RETRY_SCHEDULE: durationList.default(['1m', '5m', '30m', '2h', '8h', '24h'].map(parseDuration)),
  /** Local-mode subscription charges (ARCHITECTURE.md): an invoice still unpaid this long after issue is a failed charge. */
  LOCAL_INVOICE_DUE: duration.pipe(z.number().min(1_000, 'must be at least 1s')).default(parseDuration('1d')),
  /** When a failed subscription charge is retried, each offset counted from the failure (document 2: T+1d, T+3d, T+7d). */
  SUBSCRIPTION_RETRY_SCHEDULE: durationList
    .refine((offsets) => offsets.every((offset, i) => offset > (offsets[i - 1] ?? 0)), 'offsets from the failure must increase, e.g. 1d,3d,7d')
    .default(['1d', '3d', '7d'].map(parseDuration)),
  // Targets of the two system-managed webhook endpoints; unset = listed inactive.
  FULFILLMENT_SYNC_URL: z.url({ protocol: /^https$/ }).optional(),
  DISCOUNT_SYNC_URL: z.url({ protocol: /^https$/ }).optional(),
  // How long an API process may reuse a key lookup; revocations reach it sooner through LISTEN/NOTIFY. 0s = no cache.
  AUTH_CACHE_TTL: duration.pipe(z.number().max(60_000, 'must be at most 60s')).default(60_000),
  /** How long a rotated key's old value keeps working (document 1, Authentication: 24 hours); shorter only for tests. */
  API_KEY_ROTATION_OVERLAP: duration.pipe(z.number().min(1_000, 'must be at least 1s').max(30 * 86_400_000, 'must be at most 30d')).default(parseDuration('24h')),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(6000),
  PUBLIC_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(200),
  /** How long a dashboard sign-in lasts, from the sign-in (docs/decisions/dashboard.md): 1 minute to 30 days. */
  DASHBOARD_SESSION_TTL: duration.pipe(z.number().min(60_000, 'must be at least 1m').max(30 * 86_400_000, 'must be at most 30d')).default(parseDuration('12h')),
  /** Dashboard sign-in attempts per client IP per minute (each e-mail has its own fixed budget besides). */
  DASHBOARD_SIGNIN_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(20),
  /** Proxy hops in front of the API whose X-Forwarded-For is believed for the client IP; 0 = the socket address. */
  TRUST_PROXY: z.coerce.number().int().min(0).max(10).default(0),
  ENCRYPTION_KEY: encryptionKey.optional(),
  ENCRYPTION_KEYS_RETIRED: retiredEncryptionKeys.optional(),
  /** The operator token the Temporal Web UI's codec calls present (`Authorization: Bearer`); unset = no /codec endpoint. */
  CODEC_AUTH_TOKEN: z.string().min(32, 'must be at least 32 characters (`openssl rand -hex 32`)').optional(),
  CODEC_CORS_ORIGIN: originList.optional(),
  BODY_LIMIT: z.string().regex(/^\d+(b|kb|mb)$/, 'must look like 100kb or 1mb').default('1mb'),
  /** How long a client may take to send a request body (uploads: an hour); a slow one is 408. */
  REQUEST_TIMEOUT: duration.pipe(z.number().min(1_000, 'must be at least 1s')).default(60_000),
  // OpenAI-compatible chat-completions provider for product copy; unset = the built-in offline generator.
  AI_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  AI_API_KEY: z.string().min(1).optional(),
  AI_MODEL: z.string().min(1).optional(),
  AI_TIMEOUT: z
    .string()
    .transform((value, ctx) => {
      try {
        return parseDuration(value);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    })
    .pipe(z.number().min(1_000, 'must be at least 1s').max(300_000, 'must be at most 5m'))
    .default(60_000),
  // The HTTP shipping partner (an aggregator speaking Biteship's API); unset = the built-in local partner.
  SHIPPING_PARTNER_URL: z.url({ protocol: /^https?$/ }).optional(),
  SHIPPING_PARTNER_API_KEY: z.string().min(1).optional(),
  SHIPPING_PARTNER_TEST_API_KEY: z.string().min(1).optional(),
  // Signs the partner's status webhooks (HMAC-SHA256); long enough that it cannot be guessed.
  SHIPPING_PARTNER_WEBHOOK_SECRET: z.string().min(32, 'must be at least 32 characters (`openssl rand -hex 32`)').optional(),
  SHIPPING_PARTNER_TIMEOUT: duration.pipe(z.number().min(1_000, 'must be at least 1s').max(120_000, 'must be at most 2m')).default(15_000),
  // The payment module's provider (Xendit's API; `npm start` runs the built-in sandbox when none is configured).
  PAYMENT_PROVIDER_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  PAYMENT_PROVIDER_SECRET_KEY: z.string().min(1).optional(),
  PAYMENT_PROVIDER_CALLBACK_TOKEN: z.string().min(32, 'must be at least 32 characters (the callback verification token)').optional(),
  PAYMENT_PROVIDER_TEST_SECRET_KEY: z.string().min(1).optional(),
  PAYMENT_PROVIDER_TEST_CALLBACK_TOKEN: z.string().min(32, 'must be at least 32 characters (the test-mode callback verification token)').optional(),
  PAYMENT_PROVIDER_TIMEOUT: duration.pipe(z.number().min(1_000, 'must be at least 1s').max(120_000, 'must be at most 2m')).default(20_000),
  /** The local partner's pace: confirmed, picked up, in transit, delivered, each after the one before. */
  SHIPPING_LOCAL_SCHEDULE: durationList
    .pipe(z.array(z.number()).length(4, 'must list four durations: confirmed, picked up, in transit, delivered (e.g. 30s,2m,5m,15m)'))
    .default(['30s', '2m', '5m', '15m'].map(parseDuration)),
});

/** Every variable the processes read, in the schema's order (.env.example lists them). */
export const CONFIG_VARIABLES = Object.keys(schema.shape);

export type Config = Omit<z.infer<typeof schema>, 'PUBLIC_BASE_URL' | 'FILE_STORAGE_DIR'> & {
  PUBLIC_BASE_URL: string;
  FILE_STORAGE_DIR: string;
};

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Reads and validates every environment variable the processes use; throws ConfigError naming each bad one. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  const c = parsed.data;
  const aiProblems = [
    ...(c.AI_BASE_URL && !c.AI_MODEL ? ['AI_MODEL: required when AI_BASE_URL is set (e.g. gpt-4o-mini, llama3.1)'] : []),
    ...(!c.AI_BASE_URL && (c.AI_MODEL || c.AI_API_KEY)
      ? ['AI_BASE_URL: required when AI_MODEL or AI_API_KEY is set (e.g. https://api.openai.com/v1)']
      : []),
  ];
  const shippingProblems = [
    ...(c.SHIPPING_PARTNER_URL && !c.SHIPPING_PARTNER_API_KEY ? ['SHIPPING_PARTNER_API_KEY: required when SHIPPING_PARTNER_URL is set (the partner\'s live API key)'] : []),
    ...(c.SHIPPING_PARTNER_URL && !c.SHIPPING_PARTNER_WEBHOOK_SECRET
      ? ['SHIPPING_PARTNER_WEBHOOK_SECRET: required when SHIPPING_PARTNER_URL is set (shipment statuses arrive only through its signed webhooks)']
      : []),
    ...(!c.SHIPPING_PARTNER_URL && (c.SHIPPING_PARTNER_API_KEY || c.SHIPPING_PARTNER_TEST_API_KEY)
      ? ['SHIPPING_PARTNER_URL: required when a SHIPPING_PARTNER_*API_KEY is set (e.g. https://api.biteship.com)']
      : []),
  ];
  const paymentProblems = [
    ...(c.PAYMENT_PROVIDER_SECRET_KEY && !c.PAYMENT_PROVIDER_CALLBACK_TOKEN
      ? ['PAYMENT_PROVIDER_CALLBACK_TOKEN: required with PAYMENT_PROVIDER_SECRET_KEY (live callbacks are verified with it)']
      : []),
    ...(c.PAYMENT_PROVIDER_TEST_SECRET_KEY && !c.PAYMENT_PROVIDER_TEST_CALLBACK_TOKEN
      ? ['PAYMENT_PROVIDER_TEST_CALLBACK_TOKEN: required with PAYMENT_PROVIDER_TEST_SECRET_KEY (test-mode callbacks are verified with it)']
      : []),
    ...(!c.PAYMENT_PROVIDER_BASE_URL && (c.PAYMENT_PROVIDER_SECRET_KEY || c.PAYMENT_PROVIDER_TEST_SECRET_KEY)
      ? ['PAYMENT_PROVIDER_BASE_URL: required when a PAYMENT_PROVIDER_*SECRET_KEY is set (e.g. https://api.xendit.co)']
      : []),
    ...(c.PAYMENT_PROVIDER_BASE_URL && !c.PAYMENT_PROVIDER_SECRET_KEY && !c.PAYMENT_PROVIDER_TEST_SECRET_KEY
      ? ['PAYMENT_PROVIDER_SECRET_KEY: PAYMENT_PROVIDER_BASE_URL is set but neither PAYMENT_PROVIDER_SECRET_KEY nor PAYMENT_PROVIDER_TEST_SECRET_KEY']
      : []),
    ...(c.PAYMENT_PROVIDER_CALLBACK_TOKEN && c.PAYMENT_PROVIDER_CALLBACK_TOKEN === c.PAYMENT_PROVIDER_TEST_CALLBACK_TOKEN
      ? ['PAYMENT_PROVIDER_TEST_CALLBACK_TOKEN: must differ from PAYMENT_PROVIDER_CALLBACK_TOKEN (the token tells a test callback from a live one)']
      : []),
  ];
  const storageProblems = fileStorageProblems(c.FILE_STORAGE, present);
  const metricsProblems =
    c.METRICS_PORT !== undefined && c.METRICS_PORT !== 0 && c.METRICS_PORT === c.PORT
      ? [`METRICS_PORT: must differ from PORT (${c.PORT}): metrics are never served on the public port`]
      : [];
  const problems = [...aiProblems, ...shippingProblems, ...paymentProblems, ...storageProblems, ...metricsProblems, ...keyProblems(c),
    ...(c.CODEC_CORS_ORIGIN && !c.CODEC_AUTH_TOKEN ? ['CODEC_AUTH_TOKEN: required when CODEC_CORS_ORIGIN is set (the codec endpoint exists only with its token)'] : []),
  ];
  if (problems.length) throw new ConfigError(problems);
  return {
    ...c,
    PUBLIC_BASE_URL: (c.PUBLIC_BASE_URL ?? `http://localhost:${c.PORT}`).replace(/\/$/, ''),
    FILE_STORAGE_DIR: c.FILE_STORAGE_DIR ?? path.join(c.DATA_DIR, 'files'),
  };
}

/**
 * S3 needs its bucket and region; S3_* without FILE_STORAGE=s3 would leave files on one host's disk unnoticed; an
 * access key without its secret (or the reverse) would fail only at the first upload.
 */
function fileStorageProblems(storage: 'local' | 's3', present: Record<string, string | undefined>): string[] {
  if (storage === 'local') {
    const s3Variables = Object.keys(present).filter((name) => name.startsWith('S3_'));
    return s3Variables.length
      ? [`FILE_STORAGE: is local (the default), but ${s3Variables.join(', ')} ${s3Variables.length > 1 ? 'are' : 'is'} set; set FILE_STORAGE=s3 to keep files in the bucket, or unset ${s3Variables.length > 1 ? 'them' : 'it'}`]
      : [];
  }
  return [
    ...(!present.S3_BUCKET ? ['S3_BUCKET: required when FILE_STORAGE=s3 (the bucket every API and worker host shares)'] : []),
    ...(!present.S3_REGION ? ['S3_REGION: required when FILE_STORAGE=s3 (e.g. eu-central-1; S3-compatible servers usually take us-east-1)'] : []),
    ...(present.AWS_ACCESS_KEY_ID && !present.AWS_SECRET_ACCESS_KEY ? ['AWS_SECRET_ACCESS_KEY: required with AWS_ACCESS_KEY_ID'] : []),
    ...(present.AWS_SECRET_ACCESS_KEY && !present.AWS_ACCESS_KEY_ID ? ['AWS_ACCESS_KEY_ID: required with AWS_SECRET_ACCESS_KEY'] : []),
  ];
}

/** A retired list needs the key that replaced them, must not repeat it, and names each key once. */
function keyProblems(c: z.infer<typeof schema>): string[] {
  const retired = c.ENCRYPTION_KEYS_RETIRED ?? [];
  if (retired.length === 0) return [];
  if (!c.ENCRYPTION_KEY) return ['ENCRYPTION_KEY: required when ENCRYPTION_KEYS_RETIRED is set (the current key seals; retired ones only open)'];
  const ids = [c.ENCRYPTION_KEY, ...retired].map(encryptionKeyId);
  return [
    ...(ids.slice(1).includes(ids[0]!) ? ['ENCRYPTION_KEYS_RETIRED: lists the current ENCRYPTION_KEY; a key is either current or retired'] : []),
    ...(new Set(ids.slice(1)).size !== retired.length ? ['ENCRYPTION_KEYS_RETIRED: lists a key twice'] : []),
  ];
}

/**
 * The tracing variables alone, read before anything else loads (api/tracing.ts, worker/tracing.ts) so the
 * instrumentations are in place before the modules they patch. Null when one is invalid: loadConfig then stops the
 * process with its message.
 */
export function tracingSettings(env: NodeJS.ProcessEnv = process.env): TracingSettings | null {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.pick({ OTEL_TRACES_EXPORTER: true, OTEL_EXPORTER_OTLP_ENDPOINT: true, OTEL_EXPORTER_OTLP_PROTOCOL: true, OTEL_SERVICE_NAME: true }).safeParse(present);
  if (!parsed.success) return null;
  const c = parsed.data;
  return { exporter: c.OTEL_TRACES_EXPORTER, endpoint: c.OTEL_EXPORTER_OTLP_ENDPOINT, protocol: c.OTEL_EXPORTER_OTLP_PROTOCOL, serviceName: c.OTEL_SERVICE_NAME };
}

/** For the processes that keep secrets they must read back (stored responses, webhook signing secrets). */
export function requireEncryptionKey(config: Config): Buffer {
  if (!config.ENCRYPTION_KEY) {
    throw new ConfigError(['ENCRYPTION_KEY: required (64 hex characters; `openssl rand -hex 32`); `npm start` generates one']);
  }
  return config.ENCRYPTION_KEY;
}

/** The service's one key ring (sealed columns and workflow payloads): ENCRYPTION_KEY seals, ENCRYPTION_KEYS_RETIRED only open. */
export function requireKeyRing(config: Config): KeyRing {
  return createKeyRing(requireEncryptionKey(config), config.ENCRYPTION_KEYS_RETIRED ?? []);
}

/** For the processes that cannot run without an external database. */
export function requireDatabaseUrl(config: Config): string {
  if (!config.DATABASE_URL) {
    throw new ConfigError(['DATABASE_URL: required (postgres://user:password@host:5432/db); `npm start` provides an embedded one']);
  }
  return config.DATABASE_URL;
}
