import type { OpenTelemetryInboundInterceptor, OpenTelemetryOutboundInterceptor } from '@temporalio/interceptors-opentelemetry/lib/workflow';
import {
  defaultPayloadConverter,
  type ActivityInput,
  type ContinueAsNewInput,
  type GetLogAttributesInput,
  type LocalActivityInput,
  type Next,
  type Payload,
  type QueryInput,
  type SignalInput,
  type SignalWorkflowInput,
  type StartChildWorkflowExecutionInput,
  type StartNexusOperationInput,
  type StartNexusOperationOutput,
  type UpdateInput,
  type WorkflowExecuteInput,
  type DisposeInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptorsFactory,
  type WorkflowInternalsInterceptor,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';

/** lib/temporal-interceptors.ts's header (workflows import nothing that runs outside the sandbox). */
const REQUEST_ID_HEADER = 'x-request-id';

/** The header Temporal's OpenTelemetry client and workflow interceptors carry a span context in. */
const TRACE_HEADER = '_tracer-data';

type OpenTelemetryWorkflowModule = typeof import('@temporalio/interceptors-opentelemetry/lib/workflow');

/**
 * Temporal's OpenTelemetry workflow module, loaded by a traced run only. Every workflow run evaluates the modules
 * it loads afresh (the worker's reused V8 context keeps module state apart per run), and this one brings about
 * a hundred of OpenTelemetry's: half the bundle, paid again by every run, continue-as-new included.
 */
function openTelemetry(): OpenTelemetryWorkflowModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy load is the point (see above)
  return require('@temporalio/interceptors-opentelemetry/lib/workflow') as OpenTelemetryWorkflowModule;
}

/** What one workflow run's interceptors share: its request id, and whether its start carried a trace. */
interface RunState {
  requestId?: Payload;
  traced: boolean;
}

class RequestIdInbound implements WorkflowInboundCallsInterceptor {
  constructor(private readonly state: RunState) {}

  execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    this.state.requestId = input.headers[REQUEST_ID_HEADER];
    this.state.traced = input.headers[TRACE_HEADER] !== undefined;
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
 * Temporal's OpenTelemetry workflow interceptors, for a run whose start carried a trace (its starter had tracing
 * on). Any other run skips them: they would make a span for the run and for every activity it schedules, each
 * handed out of the sandbox through the `exporter` sink only to be dropped by a worker that exports nothing.
 * Neither way adds a command, so a history replays the same with or without them (test/replay/).
 */
class TracedInbound implements WorkflowInboundCallsInterceptor {
  private otel?: OpenTelemetryInboundInterceptor;

  constructor(private readonly state: RunState) {}

  private get traced(): OpenTelemetryInboundInterceptor | undefined {
    if (this.state.traced) this.otel ??= new (openTelemetry().OpenTelemetryInboundInterceptor)();
    return this.otel;
  }

  execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    return this.traced ? this.traced.execute(input, next) : next(input);
  }

  handleSignal(input: SignalInput, next: Next<WorkflowInboundCallsInterceptor, 'handleSignal'>): Promise<void> {
    return this.traced ? this.traced.handleSignal(input, next) : next(input);
  }

  handleUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>): Promise<unknown> {
    return this.traced ? this.traced.handleUpdate(input, next) : next(input);
  }

  validateUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'validateUpdate'>): void {
    if (this.traced) this.traced.validateUpdate(input, next);
    else next(input);
  }

  handleQuery(input: QueryInput, next: Next<WorkflowInboundCallsInterceptor, 'handleQuery'>): Promise<unknown> {
    return this.traced ? this.traced.handleQuery(input, next) : next(input);
  }
}

class TracedOutbound implements WorkflowOutboundCallsInterceptor {
  private otel?: OpenTelemetryOutboundInterceptor;

  constructor(private readonly state: RunState) {}

  private get traced(): OpenTelemetryOutboundInterceptor | undefined {
    if (this.state.traced) this.otel ??= new (openTelemetry().OpenTelemetryOutboundInterceptor)();
    return this.otel;
  }

  scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>): Promise<unknown> {
    return this.traced ? this.traced.scheduleActivity(input, next) : next(input);
  }

  scheduleLocalActivity(input: LocalActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>): Promise<unknown> {
    return this.traced ? this.traced.scheduleLocalActivity(input, next) : next(input);
  }

  startNexusOperation(input: StartNexusOperationInput, next: Next<WorkflowOutboundCallsInterceptor, 'startNexusOperation'>): Promise<StartNexusOperationOutput> {
    return this.traced ? this.traced.startNexusOperation(input, next) : next(input);
  }

  startChildWorkflowExecution(
    input: StartChildWorkflowExecutionInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'startChildWorkflowExecution'>,
  ): Promise<[Promise<string>, Promise<unknown>]> {
    return this.traced ? this.traced.startChildWorkflowExecution(input, next) : next(input);
  }

  continueAsNew(input: ContinueAsNewInput, next: Next<WorkflowOutboundCallsInterceptor, 'continueAsNew'>): Promise<never> {
    return this.traced ? this.traced.continueAsNew(input, next) : next(input);
  }

  signalWorkflow(input: SignalWorkflowInput, next: Next<WorkflowOutboundCallsInterceptor, 'signalWorkflow'>): Promise<void> {
    return this.traced ? this.traced.signalWorkflow(input, next) : next(input);
  }

  getLogAttributes(input: GetLogAttributesInput, next: Next<WorkflowOutboundCallsInterceptor, 'getLogAttributes'>): Record<string, unknown> {
    return this.traced ? this.traced.getLogAttributes(input, next) : next(input);
  }
}

/** Ends the OpenTelemetry context of a traced run when the worker drops it; an untraced run has none. */
class TracedInternals implements WorkflowInternalsInterceptor {
  constructor(private readonly state: RunState) {}

  dispose(input: DisposeInput, next: Next<WorkflowInternalsInterceptor, 'dispose'>): void {
    if (this.state.traced) void new (openTelemetry().OpenTelemetryInternalsInterceptor)().dispose(input, next);
    else next(input);
  }
}

/**
 * The workflow interceptors, bundled with the workflows (worker/workflow-bundle.ts; a prebuilt bundle ignores the
 * worker's own list): the request id, and, for a traced run, Temporal's OpenTelemetry interceptors, whose spans
 * continue the trace of the start and reach the worker through the `exporter` sink (worker/worker.ts).
 */
export const interceptors: WorkflowInterceptorsFactory = () => {
  const state: RunState = { traced: false };
  return {
    inbound: [new RequestIdInbound(state), new TracedInbound(state)],
    outbound: [new RequestIdOutbound(state), new TracedOutbound(state)],
    internals: [new TracedInternals(state)],
  };
};
