import autocannon from 'autocannon';
import type { IncomingHttpHeaders } from 'node:http';

export interface LoadRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  headers?: IncomingHttpHeaders;
  body?: string;
  /**
   * The path, body and/or extra headers of each request (n counts up across every run of this process), for creates
   * that must not all collide on one unique value, for routes that name a different resource on each request, and
   * for requests of many clients (a different X-Forwarded-For each).
   */
  vary?: (n: number) => { path?: string; body?: string; headers?: IncomingHttpHeaders };
}

export interface Measurement {
  requestsPerSecond: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number; mean: number };
  requests: number;
  durationSeconds: number;
  bytesPerResponse: number;
  /** CPU time of the server process (not PostgreSQL, not the load generator) per request; null off Linux. */
  serverCpuMsPerRequest: number | null;
  /** Statements the server sent to PostgreSQL per request, background work included (rate-limit flushes, lastUsedAt). */
  roundTripsPerRequest: number;
}

/** What the bench reads from the server process before and after the measured run. */
export interface ServerCounters {
  cpuSeconds: number | undefined;
  roundTrips: number;
  /** HTTP requests the server has received. */
  requests: number;
}

export class LoadError extends Error {}

/** Counts varied requests across every run of this process, so warm-up, ceiling and full stack never repeat a body. */
let sent = 0;

function varied(req: autocannon.Request, { headers, ...rest }: ReturnType<NonNullable<LoadRequest['vary']>>): autocannon.Request {
  return { ...req, ...rest, ...(headers ? { headers: { ...req.headers, ...headers } } : {}) };
}

async function fire(baseUrl: string, request: LoadRequest, connections: number, duration: number): Promise<autocannon.Result> {
  const { vary } = request;
  const result = await autocannon({
    url: `${baseUrl}${request.path}`,
    method: request.method,
    headers: request.headers,
    body: request.body,
    ...(vary ? { requests: [{ setupRequest: (req: autocannon.Request) => varied(req, vary((sent += 1))) }] } : {}),
    connections,
    duration,
  });
  const bad = result.non2xx + result.errors + result.timeouts + result.mismatches;
  if (bad > 0 || result['2xx'] === 0) {
    const codes = Object.entries(result.statusCodeStats ?? {})
      .map(([code, stat]) => `${code}×${stat.count ?? 0}`)
      .join(', ');
    throw new LoadError(
      `${request.method} ${baseUrl}${request.path}: ${result['2xx']} 2xx, ${result.non2xx} non-2xx (${codes || 'no status codes'}), ` +
        `${result.errors} errors, ${result.timeouts} timeouts — refusing to report figures for failed requests`,
    );
  }
  return result;
}

/**
 * Warm-up (discarded), then the measured run; both must answer 2xx to every request. `serverCpu` reads the
 * server process's CPU seconds and round trips so far, to report both per request over the measured run.
 */
export async function measure(
  baseUrl: string,
  request: LoadRequest,
  options: { connections: number; warmup: number; duration: number },
  counters: () => Promise<ServerCounters>,
): Promise<Measurement> {
  await fire(baseUrl, request, options.connections, options.warmup);
  const before = await counters();
  const result = await fire(baseUrl, request, options.connections, options.duration);
  const after = await counters();
  const [cpuBefore, cpuAfter] = [before.cpuSeconds, after.cpuSeconds];
  return {
    requestsPerSecond: result.requests.average,
    latencyMs: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
      mean: result.latency.mean,
    },
    requests: result.requests.total,
    durationSeconds: result.duration,
    bytesPerResponse: result.requests.total > 0 ? Math.round(result.throughput.total / result.requests.total) : 0,
    serverCpuMsPerRequest:
      cpuBefore !== undefined && cpuAfter !== undefined && result.requests.total > 0
        ? ((cpuAfter - cpuBefore) * 1000) / result.requests.total
        : null,
    roundTripsPerRequest: (after.roundTrips - before.roundTrips) / Math.max(1, after.requests - before.requests),
  };
}
