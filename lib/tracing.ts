import { context, isSpanContextValid, propagation, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import { currentLogContext, withLogContext } from './log-context';

/**
 * What the rest of the service uses of tracing: only @opentelemetry/api, whose calls are no-ops until
 * lib/tracing-setup.ts installs a tracer provider (OTEL_TRACES_EXPORTER=otlp).
 */

let installed = false;

/** Called by startTracing once the provider is installed. */
export function markTracingInstalled(): void {
  installed = true;
}

/** True once startTracing installed a tracer provider in this process. */
export function tracingEnabled(): boolean {
  return installed;
}

/** `trace_id` and `span_id` of the active span, for a log line; empty when none is active. */
export function activeTraceFields(): { trace_id?: string; span_id?: string } {
  const spanContext = trace.getActiveSpan()?.spanContext();
  return spanContext && isSpanContextValid(spanContext) ? { trace_id: spanContext.traceId, span_id: spanContext.spanId } : {};
}

/**
 * Where a recorded intent came from: the W3C trace context (`traceparent`, `tracestate`) of the active span and the
 * request id of the log context. Stored beside an outbox row, so the workflow its relay starts later joins the trace
 * of the request or activity that recorded it, and names that request. Null when there is neither.
 */
export type Origin = Record<string, string>;

export function captureOrigin(): Origin | null {
  const origin: Origin = {};
  propagation.inject(context.active(), origin);
  const { requestId } = currentLogContext();
  if (requestId) origin.requestId = requestId;
  return Object.keys(origin).length ? origin : null;
}

/** Runs `fn` in the trace context and with the request id of a captured origin. */
export function withOrigin<T>(origin: Origin | null | undefined, fn: () => T): T {
  if (!origin) return fn();
  const run = () => context.with(propagation.extract(context.active(), origin), fn);
  return origin.requestId ? withLogContext({ requestId: origin.requestId }, run) : run();
}

/** Runs `fn` in a span of its own (a child of the active one): the calls no instrumentation sees, such as SMTP. */
export async function inSpan<T>(name: string, attributes: Attributes, fn: () => Promise<T>): Promise<T> {
  if (!installed) return fn();
  return trace.getTracer('commerce-service').startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn();
    } catch (err) {
      span.recordException(err instanceof Error ? err : String(err));
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * Names the active (server) span after the route that answers it, `GET /api/v1/products/:id`, with `http.route`: Express
 * 5 has no instrumentation on the OpenTelemetry release line Temporal's interceptors are built on (docs/tracing.md).
 * Returns the function to call once the route is known.
 */
export function routeSpanNamer(method: string): (route: string) => void {
  const span = installed ? trace.getActiveSpan() : undefined;
  if (!span) return () => undefined;
  return (route) => {
    span.updateName(`${method} ${route}`);
    span.setAttribute('http.route', route);
  };
}
