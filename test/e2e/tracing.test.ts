import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { msToTs } from '@temporalio/common/lib/time';
import { freePort } from '../../scripts/lib/free-port';
import { CHECKOUT_SESSIONS, minimalSession } from '../helpers/checkout';
import { createTestContext, http, type TestContext } from '../helpers/context';
import { createTestCertificates, startHttpsReceiver, type HttpsReceiver, type TestCertificates } from '../helpers/https-receiver';
import { usePrivateDatabase } from '../helpers/private-database';
import { waitFor } from '../helpers/wait';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';

/**
 * Tracing end to end (docs/tracing.md): `api/main.ts` and `worker/main.ts` as processes (tracing is process-global)
 * export to a real OTLP/HTTP receiver on loopback, the API as http/json and the worker as http/protobuf, so one
 * checkout exercises both encodings. The checkout's requests carry one inbound `traceparent`; every span of the
 * checkout, from the requests through the workflow, its activities, the webhook delivery and its PostgreSQL
 * statements, must be in that trace, and the log lines must name it.
 */
jest.setTimeout(180_000);

usePrivateDatabase('tracing_e2e');
const namespace = `tracing-e2e-${process.pid}-${Date.now()}`;
const taskQueue = 'commerce-tracing-e2e';

interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  service: string;
  attributes: Record<string, unknown>;
  encoding: 'json' | 'protobuf';
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
interface OtlpSpan {
  traceId: string | Uint8Array;
  spanId: string | Uint8Array;
  /** protobuf decodes an absent parent (a root span, e.g. a scheduled sweep's activity) as null. */
  parentSpanId?: string | Uint8Array | null;
  name: string;
  kind: number;
  attributes?: { key: string; value: AnyValue }[];
}
interface OtlpRequest {
  resourceSpans?: { resource?: { attributes?: { key: string; value: AnyValue }[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

const hex = (id: string | Uint8Array | null | undefined) => (id == null ? '' : typeof id === 'string' ? id : Buffer.from(id).toString('hex'));
const attributeValue = (value: AnyValue) => value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue;

/** The generated OTLP protobuf types of @opentelemetry/otlp-transformer, for the worker's http/protobuf requests. */
function decodeProtobuf(body: Buffer): OtlpRequest {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const root = require('@opentelemetry/otlp-transformer/build/src/generated/root') as {
    opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: { decode(b: Uint8Array): OtlpRequest } } } } } };
  };
  return root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest.decode(body);
}

/** A real OTLP/HTTP receiver: POST /v1/traces, JSON or protobuf, answered 200 as a collector does. */
async function startOtlpReceiver(): Promise<{ url: string; spans: ReceivedSpan[]; close(): Promise<void> }> {
  const spans: ReceivedSpan[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const json = (req.headers['content-type'] ?? '').includes('json');
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const request = json ? (JSON.parse(body.toString('utf8')) as OtlpRequest) : decodeProtobuf(body);
      for (const resourceSpans of request.resourceSpans ?? []) {
        const service = String(attributeValue(resourceSpans.resource?.attributes?.find((a) => a.key === 'service.name')?.value ?? {}) ?? '');
        for (const span of (resourceSpans.scopeSpans ?? []).flatMap((s) => s.spans ?? [])) {
          spans.push({
            traceId: hex(span.traceId),
            spanId: hex(span.spanId),
            parentSpanId: hex(span.parentSpanId),
            name: span.name,
            kind: span.kind,
            service,
            attributes: Object.fromEntries((span.attributes ?? []).map((a) => [a.key, attributeValue(a.value)])),
            encoding: json ? 'json' : 'protobuf',
          });
        }
      }
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CLIENT = 3;

let ctx: TestContext;
let certs: TestCertificates;
let receiver: HttpsReceiver;
let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
let api: WorkerProcess;
let worker: WorkerProcess;
let apiPort: number;
let workspace: { accountId: string; secretKey: string };

const apiUrl = () => `http://127.0.0.1:${apiPort}`;
const until = <T>(probe: () => Promise<T | undefined | false> | T | undefined | false, what: string) =>
  waitFor(async () => probe(), { timeoutMs: 90_000, intervalMs: 250, describe: () => `${what}\n--- worker ---\n${worker?.output() ?? ''}\n--- api ---\n${api?.output() ?? ''}` });

beforeAll(async () => {
  ctx = await createTestContext();
  certs = await createTestCertificates();
  receiver = await startHttpsReceiver(certs);
  otlp = await startOtlpReceiver();
  await ctx.temporal.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
  workspace = await ctx.createWorkspace({ plan: 'pro' });

  let workerPort: number;
  [apiPort, workerPort] = await Promise.all([freePort(), freePort()]);
  const shared = {
    TEMPORAL_NAMESPACE: namespace,
    TEMPORAL_TASK_QUEUE: taskQueue,
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    // Spans leave every 200 ms rather than every 5 s.
    OTEL_BSP_SCHEDULE_DELAY: '200',
  };
  [api, worker] = await Promise.all([
    startWorkerProcess({ ...shared, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', PORT: String(apiPort) }, { script: 'api/main.ts', startedMessage: 'api listening' }),
    startWorkerProcess({
      ...shared,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_SERVICE_NAME: 'tracing-e2e-worker',
      WORKER_HEALTH_PORT: String(workerPort),
      NODE_EXTRA_CA_CERTS: certs.caFile,
      WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s',
    }),
  ]);
}, 180_000);

afterAll(async () => {
  await Promise.all([api?.stop(), worker?.stop()]);
  await Promise.all([receiver?.close(), otlp?.close()]);
  await ctx?.close();
});

describe('one checkout is one trace', () => {
  const traceId = randomBytes(16).toString('hex');
  /** A W3C traceparent of `traceId` with a fresh parent span, as a caller's own tracing would send for each call. */
  const traceparent = () => `00-${traceId}-${randomBytes(8).toString('hex')}-01`;
  const inTrace = () => otlp.spans.filter((s) => s.traceId === traceId);
  let createParent: string;
  let createRequestId: string;
  const requestIds: string[] = [];
  let sessionId: string;
  const webhookPath = `/tracing-${Date.now()}`;

  beforeAll(async () => {
    // The first delivery attempt fails, so the webhook activity logs a line of its own.
    receiver.respond((req, index) => (req.path === webhookPath && index === 0 ? 500 : 200));
    const endpoint = await http<{ data: { id: string } }>(apiUrl(), 'POST', '/api/v1/payment/webhook-endpoints', {
      key: workspace.secretKey,
      body: { url: receiver.url(webhookPath), events: ['checkout.completed'] },
    });
    expect(endpoint.status).toBe(201);

    createParent = traceparent();
    const created = await http<{ data: { id: string } }>(apiUrl(), 'POST', CHECKOUT_SESSIONS, { key: workspace.secretKey, body: minimalSession, headers: { traceparent: createParent } });
    expect(created.status).toBe(201);
    sessionId = created.body.data.id;
    createRequestId = created.headers.get('x-request-id')!;
    const paid = await http(apiUrl(), 'POST', `${CHECKOUT_SESSIONS}/${sessionId}/pay`, { body: { paymentMethod: 'va' }, headers: { traceparent: traceparent() } });
    expect(paid.status).toBe(200);
    const confirmed = await http(apiUrl(), 'POST', `${CHECKOUT_SESSIONS}/${sessionId}/confirm`, { key: workspace.secretKey, headers: { traceparent: traceparent() } });
    expect(confirmed.status).toBe(200);
    requestIds.push(createRequestId, paid.headers.get('x-request-id')!, confirmed.headers.get('x-request-id')!);
    await receiver.waitFor((r) => r.some((x) => x.path === webhookPath && x.status === 200), 90_000);
  });

  it('honours the inbound traceparent: the API server span continues the caller’s trace and parent', async () => {
    const parentSpanId = createParent.split('-')[2];
    const server = await until(
      () => inTrace().find((s) => s.service === 'commerce-api' && s.kind === SPAN_KIND_SERVER && s.parentSpanId === parentSpanId),
      'the create request’s server span',
    );
    expect(server.name).toBe(`POST ${CHECKOUT_SESSIONS}`);
    expect(server.attributes['http.route']).toBe(CHECKOUT_SESSIONS);
    expect(server.encoding).toBe('json');
  });

  it('holds the API requests, the workflow start, the workflow, its activities, the webhook delivery and PostgreSQL', async () => {
    const names = () => new Set(inTrace().map((s) => s.name));
    await until(
      () =>
        ['RunWorkflow:checkoutSession', 'RunWorkflow:webhookDelivery'].every((n) => names().has(n)) &&
        inTrace().some((s) => s.name.startsWith('RunActivity:') && s.attributes['temporalWorkflowId'] === `checkout-session:${sessionId}`) &&
        inTrace().some((s) => s.service === 'tracing-e2e-worker' && s.kind === SPAN_KIND_CLIENT && String(s.attributes['http.url'] ?? '').includes(webhookPath)),
      'the workflow, activity and webhook spans',
    );
    const spans = inTrace();
    const services = new Set(spans.map((s) => s.service));
    expect(services).toEqual(new Set(['commerce-api', 'tracing-e2e-worker']));
    const api = spans.filter((s) => s.service === 'commerce-api');
    expect(api.filter((s) => s.kind === SPAN_KIND_SERVER).map((s) => s.name)).toEqual(
      expect.arrayContaining([`POST ${CHECKOUT_SESSIONS}`, `POST ${CHECKOUT_SESSIONS}/:id/pay`, `POST ${CHECKOUT_SESSIONS}/:id/confirm`]),
    );
    // The API starts the session's workflow right after its commit, unless the worker's start relay claimed it first.
    expect(spans.some((s) => s.name === 'StartWorkflow:checkoutSession')).toBe(true);
    expect(api.some((s) => s.attributes['db.system'] === 'postgresql')).toBe(true);

    const worker = spans.filter((s) => s.service === 'tracing-e2e-worker');
    expect(worker.every((s) => s.encoding === 'protobuf')).toBe(true);
    const activities = worker.filter((s) => s.name.startsWith('RunActivity:'));
    expect(activities.length).toBeGreaterThan(1);
    expect(worker.some((s) => s.name === 'StartWorkflow:webhookDelivery')).toBe(true);
    expect(activities.some((s) => String(s.attributes.temporalWorkflowId).startsWith('webhook-delivery:'))).toBe(true);
    expect(worker.some((s) => s.attributes['db.system'] === 'postgresql')).toBe(true);

    // The workflows continue the spans that started them.
    const ids = new Set(spans.map((s) => s.spanId));
    for (const run of spans.filter((s) => s.name.startsWith('RunWorkflow:'))) {
      expect(spans.find((s) => s.spanId === run.parentSpanId)?.name).toMatch(/^(StartWorkflow|SignalWithStartWorkflow):/);
    }
    expect(ids.size).toBe(spans.length);

    // The receiver saw the trace too: the webhook request carried its traceparent.
    const delivered = receiver.received.filter((r) => r.path === webhookPath);
    expect(delivered.every((r) => String(r.headers.traceparent ?? '').split('-')[1] === traceId)).toBe(true);
  });

  it('names the trace on the log lines of both processes, and the workflow, run and request on the worker’s', async () => {
    const apiLines = api.lines().filter((l) => l.includes(`"trace_id":"${traceId}"`));
    expect(apiLines.some((l) => l.includes(`"requestId":"${createRequestId}"`))).toBe(true);
    const attemptLine = await until(
      () => worker.lines().find((l) => l.includes('"msg":"webhook attempt failed"') && l.includes(`"trace_id":"${traceId}"`)),
      'the failed attempt’s log line',
    );
    const line = JSON.parse(attemptLine) as Record<string, unknown>;
    expect(line.workflowId).toMatch(/^webhook-delivery:evt_/);
    expect(line.runId).toEqual(expect.any(String));
    expect(line.span_id).toEqual(expect.any(String));
    // The delivery was started by the outbox relay, from an event one of the checkout's requests emitted: its id.
    expect(requestIds).toContain(line.requestId);
  });
});

describe('the SDK’s logs', () => {
  it('go through the worker’s pino logger', () => {
    const sdkLines = worker.lines().filter((l) => l.includes('"component":"temporal-sdk"'));
    expect(sdkLines.length).toBeGreaterThan(0);
    expect(() => sdkLines.forEach((l) => JSON.parse(l))).not.toThrow();
  });
});
