import { OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor, makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry/lib/worker';
import { defaultPayloadConverter, type LogLevel, type LogMetadata, type Logger as SdkLogger } from '@temporalio/common';
import type { ActivityInboundCallsInterceptor, ActivityInterceptorsFactory, ActivityExecuteInput, InjectedSinks, Next } from '@temporalio/worker';
import type { Context as ActivityContext } from '@temporalio/activity';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry/lib/workflow/definitions';
import { withLogContext } from '../lib/log-context';
import type { Logger } from '../lib/logger';
import { REQUEST_ID_HEADER } from '../lib/temporal-interceptors';
import type { Tracing } from '../lib/tracing-setup';

const PINO_LEVEL = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;

/**
 * The Temporal SDK's logs through the service's pino logger (Runtime.install's `logger`): its own, those of workflows
 * (`log` from @temporalio/workflow, with workflowId and runId) and of activity contexts, and the Rust core's (forwarded).
 */
export function sdkLogger(logger: Logger): SdkLogger {
  const sdk = logger.child({ component: 'temporal-sdk' });
  const log = (level: LogLevel, message: string, meta?: LogMetadata) => sdk[PINO_LEVEL[level]](meta ?? {}, message);
  return {
    log,
    trace: (message, meta) => log('TRACE', message, meta),
    debug: (message, meta) => log('DEBUG', message, meta),
    info: (message, meta) => log('INFO', message, meta),
    warn: (message, meta) => log('WARN', message, meta),
    error: (message, meta) => log('ERROR', message, meta),
  };
}

/**
 * Runs each activity in the log context of its workflow: every line it logs through pino names the workflow id,
 * run id and activity type, and the id of the request that started the workflow (the workflow hands its header on).
 */
class LogContextInbound implements ActivityInboundCallsInterceptor {
  constructor(private readonly ctx: ActivityContext) {}

  execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const { info } = this.ctx;
    const run = info.inWorkflow ? info.workflowExecution : undefined;
    const header = input.headers[REQUEST_ID_HEADER];
    const fields = {
      activityType: info.activityType,
      ...(run ? { workflowId: run.workflowId, runId: run.runId } : {}),
      ...(header ? { requestId: defaultPayloadConverter.fromPayload<string>(header) } : {}),
    };
    return withLogContext(fields, () => next(input));
  }
}

/** The worker's activity interceptors: the log context always; with tracing on, an `RunActivity` span in the workflow's trace. */
export function activityInterceptors(tracing: Tracing): ActivityInterceptorsFactory[] {
  return [
    (ctx) => ({ inbound: new LogContextInbound(ctx) }),
    ...(tracing.enabled
      ? [(ctx: ActivityContext) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) })]
      : []),
  ];
}

/**
 * The `exporter` sink the bundled OpenTelemetry workflow interceptors send their spans to (workflows/interceptors.ts):
 * the process's span processor with tracing on, else a sink that drops them. Sinks are not called on replay.
 */
export function workflowSpanSinks(tracing: Tracing): InjectedSinks<OpenTelemetrySinks> {
  if (tracing.spanProcessor && tracing.resource) return { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) };
  return { exporter: { export: { fn: () => undefined } } };
}
