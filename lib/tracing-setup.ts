import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as OtlpJsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { markTracingInstalled, tracingEnabled } from './tracing';

/**
 * OpenTelemetry tracing of one process (docs/tracing.md), set by the standard variables (lib/config.ts reads them):
 * OTEL_TRACES_EXPORTER `none` (the default: nothing is installed, and lib/tracing.ts's helpers stay no-ops) or `otlp`.
 */
export interface TracingSettings {
  exporter: 'none' | 'otlp';
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL; spans go to its `/v1/traces`. */
  endpoint: string;
  protocol: 'http/json' | 'http/protobuf';
  /** OTEL_SERVICE_NAME; unset = the process's own name (commerce-api, commerce-worker). */
  serviceName?: string;
}

export interface Tracing {
  enabled: boolean;
  /** Where the worker hands the spans its workflows make in their sandbox (Temporal's span sink); set when enabled. */
  spanProcessor?: SpanProcessor;
  resource?: Resource;
  /** Exports what is still buffered; the process calls it on its way out. */
  shutdown(): Promise<void>;
}

/** Probes and scrapes: answered many times a minute and telling nothing about the work, so they get no span. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Installs the process's tracer provider, W3C trace context propagation and the instrumentations: http (inbound
 * requests, outbound webhooks and the Temporal UI codec calls), undici (fetch: payment and shipping providers) and
 * pg (every statement Sequelize sends). Must run before `pg` is first required (api/tracing.ts and
 * worker/tracing.ts are the first import of their main.ts). Outbound calls and statements are traced only inside a
 * span (a request, a workflow start, an activity), so the relays' polling and LISTEN make no orphan traces. SMTP has
 * no instrumentation of its own: the mailer wraps each send in a span (`inSpan`).
 */
export function startTracing(settings: TracingSettings | null, defaultServiceName: string): Tracing {
  if (!settings || settings.exporter === 'none' || tracingEnabled()) return { enabled: tracingEnabled(), shutdown: async () => undefined };
  const url = `${settings.endpoint.replace(/\/+$/, '')}/v1/traces`;
  const exporter = settings.protocol === 'http/json' ? new OtlpJsonTraceExporter({ url }) : new OtlpProtobufTraceExporter({ url });
  const resource = Resource.default().merge(new Resource({ 'service.name': settings.serviceName ?? defaultServiceName }));
  const spanProcessor = new BatchSpanProcessor(exporter);
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0] ?? ''),
        requireParentforOutgoingSpans: true,
      }),
      new UndiciInstrumentation({ requireParentforSpans: true }),
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  markTracingInstalled();
  return { enabled: true, spanProcessor, resource, shutdown: () => provider.shutdown() };
}

