import { OpenTelemetryInboundInterceptor, OpenTelemetryInternalsInterceptor, OpenTelemetryOutboundInterceptor } from '@temporalio/interceptors-opentelemetry/lib/workflow';
import {
  defaultPayloadConverter,
  type ActivityInput,
  type ContinueAsNewInput,
  type GetLogAttributesInput,
  type LocalActivityInput,
  type Next,
  type Payload,
  type StartChildWorkflowExecutionInput,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptorsFactory,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';

/** lib/temporal-interceptors.ts's header (workflows import nothing that runs outside the sandbox). */
const REQUEST_ID_HEADER = 'x-request-id';

/** The request id of one workflow run, shared by its inbound and outbound interceptor. */
interface RunState {
  requestId?: Payload;
}

class RequestIdInbound implements WorkflowInboundCallsInterceptor {
  constructor(private readonly state: RunState) {}

  execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    this.state.requestId = input.headers[REQUEST_ID_HEADER];
    return next(input);
  }
}

/** Hands the run's request id on to what it schedules, and names it on the workflow's own log lines. */
class RequestIdOutbound implements WorkflowOutboundCallsInterceptor {
  constructor(private readonly state: RunState) {}

  private withHeader<T extends { headers: Record<string, Payload> }>(input: T): T {
    const payload = this.state.requestId;
    return payload ? { ...input, headers: { ...input.headers, [REQUEST_ID_HEADER]: payload } } : input;
  }

  scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>): Promise<unknown> {
    return next(this.withHeader(input));
  }

  scheduleLocalActivity(input: LocalActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>): Promise<unknown> {
    return next(this.withHeader(input));
  }

  startChildWorkflowExecution(
    input: StartChildWorkflowExecutionInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'startChildWorkflowExecution'>,
  ): Promise<[Promise<string>, Promise<unknown>]> {
    return next(this.withHeader(input));
  }

  continueAsNew(input: ContinueAsNewInput, next: Next<WorkflowOutboundCallsInterceptor, 'continueAsNew'>): Promise<never> {
    return next(this.withHeader(input));
  }

  getLogAttributes(input: GetLogAttributesInput, next: Next<WorkflowOutboundCallsInterceptor, 'getLogAttributes'>): Record<string, unknown> {
    const payload = this.state.requestId;
    return next(payload ? { requestId: defaultPayloadConverter.fromPayload<string>(payload), ...input } : input);
  }
}

/**
 * The workflow interceptors, bundled with the workflows (worker/workflow-bundle.ts; a prebuilt bundle ignores the
 * worker's own list): the request id, and Temporal's OpenTelemetry interceptors, whose spans continue the trace of
 * the start and reach the worker through the `exporter` sink (worker/worker.ts). Neither adds a command, so
 * histories replay the same with or without them.
 */
export const interceptors: WorkflowInterceptorsFactory = () => {
  const state: RunState = {};
  return {
    inbound: [new RequestIdInbound(state), new OpenTelemetryInboundInterceptor()],
    outbound: [new RequestIdOutbound(state), new OpenTelemetryOutboundInterceptor()],
    internals: [new OpenTelemetryInternalsInterceptor()],
  };
};
