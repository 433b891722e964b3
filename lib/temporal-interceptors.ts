import type { ClientInterceptors, Next, WorkflowClientInterceptor, WorkflowSignalInput, WorkflowSignalWithStartInput, WorkflowStartInput, WorkflowStartOutput } from '@temporalio/client';
import { defaultPayloadConverter, type Headers } from '@temporalio/common';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client';
import { currentLogContext } from './log-context';
import { tracingEnabled } from './tracing';

/**
 * The Temporal header that carries the id of the request that started or signalled a workflow; the workflow
 * interceptors (workflows/interceptors.ts) hand it on to the workflow's activities, continued runs and children, and
 * worker log lines name it.
 */
export const REQUEST_ID_HEADER = 'x-request-id';

function withRequestId<T extends { headers: Headers }>(input: T): T {
  const { requestId } = currentLogContext();
  if (!requestId || input.headers[REQUEST_ID_HEADER]) return input;
  return { ...input, headers: { ...input.headers, [REQUEST_ID_HEADER]: defaultPayloadConverter.toPayload(requestId) } };
}

/** Adds the log context's request id to every workflow start and signal. */
class RequestIdClientInterceptor implements WorkflowClientInterceptor {
  start(input: WorkflowStartInput, next: Next<WorkflowClientInterceptor, 'start'>): Promise<string> {
    return next(withRequestId(input));
  }

  startWithDetails(input: WorkflowStartInput, next: Next<WorkflowClientInterceptor, 'startWithDetails'>): Promise<WorkflowStartOutput> {
    return next(withRequestId(input));
  }

  signalWithStart(input: WorkflowSignalWithStartInput, next: Next<WorkflowClientInterceptor, 'signalWithStart'>): Promise<string> {
    return next(withRequestId(input));
  }

  signal(input: WorkflowSignalInput, next: Next<WorkflowClientInterceptor, 'signal'>): Promise<void> {
    return next(withRequestId(input));
  }
}

/**
 * The interceptors of every Temporal client of the service (API, worker relays, CLI): the request id always; with
 * tracing on, the span context too (Temporal's OpenTelemetry interceptor: a `StartWorkflow` span, a child of the active
 * one, whose context the workflow's spans continue).
 */
export function clientInterceptors(): ClientInterceptors {
  return { workflow: [new RequestIdClientInterceptor(), ...(tracingEnabled() ? [new OpenTelemetryWorkflowClientInterceptor()] : [])] };
}
