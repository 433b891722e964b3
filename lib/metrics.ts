import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ProbeAnswer } from './probe-listener';

/**
 * The service's Prometheus metrics (docs/metrics.md): one registry per process, read by the API's METRICS_PORT
 * listener and the worker's WORKER_HEALTH_PORT /metrics. Counters are counted where their event happens; gauges that
 * need a query are computed at scrape time by the sources the processes register (watchDatabasePool,
 * watchRelayBacklog), so a scrape always reads the present state and nothing runs between scrapes.
 */
export const metricsRegistry = new Registry();

/** The exposition format's content type (Prometheus text 0.0.4). */
export const METRICS_CONTENT_TYPE = metricsRegistry.contentType;

/** Latency buckets (seconds) from a cached key lookup to an upload's minute. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

const httpRequests = new Counter({
  name: 'commerce_http_requests_total',
  help: 'HTTP requests answered by the API, by route template (never the raw path), method and status',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [metricsRegistry],
});

const httpDuration = new Histogram({
  name: 'commerce_http_request_duration_seconds',
  help: 'Time from a request reaching the API to its response being sent, by route template, method and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: HTTP_BUCKETS,
  registers: [metricsRegistry],
});

/** What one webhook POST came to: a 2xx, or anything else (an error status, a refused target, a timeout). */
export type WebhookAttemptOutcome = 'succeeded' | 'failed';

const webhookAttempts = new Counter({
  name: 'commerce_webhook_attempts_total',
  help: 'Webhook delivery attempts sent to endpoints, by outcome (succeeded: a 2xx; failed: another status, a refused target, a timeout)',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

/** What one SMTP send came to: accepted, failed for a retry (4xx, no connection), or refused for good (5xx). */
export type EmailAttemptOutcome = 'sent' | 'failed' | 'refused';

const emailAttempts = new Counter({
  name: 'commerce_email_attempts_total',
  help: 'Buyer e-mail sends, by outcome (sent; failed: retried later; refused: a permanent SMTP answer)',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

const emailsGivenUp = new Counter({
  name: 'commerce_emails_given_up_total',
  help: 'Buyer e-mails the service gave up on (refused, or still failing after its retries)',
  registers: [metricsRegistry],
});

const checkoutCompletions = new Counter({
  name: 'commerce_checkout_completions_total',
  help: 'Checkout sessions completed (committed), by environment and payment backend',
  labelNames: ['environment', 'backend'] as const,
  registers: [metricsRegistry],
});

export const recordMetric = {
  httpRequest(labels: { method: string; route: string; status: string }, seconds: number): void {
    httpRequests.inc(labels);
    httpDuration.observe(labels, seconds);
  },
  webhookAttempt(outcome: WebhookAttemptOutcome): void {
    webhookAttempts.inc({ outcome });
  },
  emailAttempt(outcome: EmailAttemptOutcome): void {
    emailAttempts.inc({ outcome });
  },
  emailGivenUp(): void {
    emailsGivenUp.inc();
  },
  checkoutCompleted(labels: { environment: string; backend: string }): void {
    checkoutCompletions.inc(labels);
  },
};

/** A connection pool as its gauges read it. */
export interface PoolStats {
  /** Connections open now, in use or idle. */
  size: number;
  inUse: number;
  idle: number;
  /** Callers waiting for a connection: above 0 for long, the pool is too small or queries too slow. */
  waiting: number;
  max: number;
}

let poolSource: (() => PoolStats) | null = null;

const poolGauge = (name: string, help: string, read: (stats: PoolStats) => number) =>
  new Gauge({
    name,
    help,
    registers: [metricsRegistry],
    collect() {
      // NaN, not 0, in a process that registered no pool: "unknown", which no alert mistakes for "fine".
      this.set(poolSource ? read(poolSource()) : Number.NaN);
    },
  });

poolGauge('commerce_db_pool_connections', 'Database connections the process holds open (in use and idle)', (s) => s.size);
poolGauge('commerce_db_pool_connections_in_use', 'Database connections checked out of the pool', (s) => s.inUse);
poolGauge('commerce_db_pool_connections_idle', 'Open database connections waiting in the pool', (s) => s.idle);
poolGauge('commerce_db_pool_waiting_requests', 'Callers waiting for a database connection', (s) => s.waiting);
poolGauge('commerce_db_pool_max_connections', 'The pool\'s size limit (DATABASE_POOL_MAX)', (s) => s.max);

/** The process's database pool, read at each scrape. */
export function watchDatabasePool(read: () => PoolStats): void {
  poolSource = read;
}

/** The two outboxes' backlog: what is waiting to be relayed and since when. */
export interface RelayBacklog {
  /** Domain events not yet fanned out to webhook endpoints. */
  outboxPending: number;
  /** Age of the oldest of them; 0 when none waits. */
  outboxOldestSeconds: number;
  /** Durable workflow starts not yet made. */
  startsPending: number;
  /** Age of the oldest of them; 0 when none waits. */
  startsOldestSeconds: number;
}

let backlogSource: (() => Promise<RelayBacklog>) | null = null;
/** One query per scrape feeds the four gauges: the first gauge collected runs it, the others share its answer. */
let backlogRead: Promise<RelayBacklog | null> | null = null;

function readBacklog(): Promise<RelayBacklog | null> {
  if (!backlogSource) return Promise.resolve(null);
  backlogRead ??= backlogSource()
    // A database that does not answer makes the gauges NaN (unknown) rather than failing the whole scrape.
    .catch(() => null)
    .finally(() => setImmediate(() => (backlogRead = null)));
  return backlogRead;
}

const backlogGauge = (name: string, help: string, read: (backlog: RelayBacklog) => number) =>
  new Gauge({
    name,
    help,
    registers: [metricsRegistry],
    async collect() {
      const backlog = await readBacklog();
      this.set(backlog ? read(backlog) : Number.NaN);
    },
  });

/** Whether this process reports the outboxes' backlog (the worker, which runs their relays). */
export function watchRelayBacklog(read: () => Promise<RelayBacklog>): void {
  if (!backlogSource) {
    backlogGauge('commerce_outbox_lag_seconds', 'Age of the oldest domain event not yet fanned out to webhook endpoints (0 when none waits)', (b) => b.outboxOldestSeconds);
    backlogGauge('commerce_outbox_pending_events', 'Domain events not yet fanned out to webhook endpoints', (b) => b.outboxPending);
    backlogGauge('commerce_start_relay_lag_seconds', 'Age of the oldest durable workflow start not yet made (0 when none waits)', (b) => b.startsOldestSeconds);
    backlogGauge('commerce_start_relay_pending_starts', 'Durable workflow starts not yet made', (b) => b.startsPending);
  }
  backlogSource = read;
}

let processMetrics = false;

/** The Node.js process's own metrics (CPU, memory, event-loop lag, GC), under their standard names. */
export function collectProcessMetrics(): void {
  if (processMetrics) return;
  processMetrics = true;
  collectDefaultMetrics({ register: metricsRegistry });
}

/** The exposition text of every metric of this process. */
export function renderMetrics(): Promise<string> {
  return metricsRegistry.metrics();
}

/** A probe listener's GET /metrics: the service's metrics in Prometheus' text format (the API's METRICS_PORT). */
export async function metricsAnswer(): Promise<ProbeAnswer> {
  return { status: 200, body: await renderMetrics(), contentType: METRICS_CONTENT_TYPE };
}
