import {
  isGrpcDeadlineError,
  isGrpcServiceError,
  ServiceError,
  WorkflowExecutionAlreadyStartedError,
  type Client,
  type WorkflowStartOptions,
} from '@temporalio/client';
import type { Workflow } from '@temporalio/common';
import type { aiGeneration, checkoutSession, emailDelivery, fileCleanup, manualOrder, payout, settlement, shipment, subscription, testClock, webhookDelivery } from '../workflows';
import {
  ACCOUNT_ID,
  aiGenerationRequested,
  checkoutCompleted,
  checkoutPaymentSubmitted,
  payoutMoved,
  subscriptionChanged,
  testClockAdvanceRequested,
  shipmentWaybillAssigned,
  workflowIds,
  type AiGenerationTarget,
  type CheckoutSessionInput,
  type EmailDeliveryInput,
  type FileCleanupInput,
  type ManualOrderInput,
  type PayoutMove,
  type PayoutWorkflowInput,
  type SettlementInput,
  type SubscriptionWorkflowInput,
  type TestClockInput,
  type ShipmentWorkflowInput,
  type WebhookDeliveryInput,
} from '../workflows/messages';

/**
 * Workflows started through the workflow-start outbox (db/workflow-starts.ts), by workflow type: the input
 * recorded as the row's args. A new one (checkout, subscription, payout) is one entry here and one in `DURABLE`.
 */
export interface DurableStartInputs {
  aiGeneration: AiGenerationTarget;
  fileCleanup: FileCleanupInput;
  emailDelivery: EmailDeliveryInput;
  checkoutSession: CheckoutSessionInput;
  /** Signal-with-start of the session's workflow: the session committed as `completed`. */
  checkoutCompleted: CheckoutSessionInput;
  manualOrder: ManualOrderInput;
  /** Started with the checkout credit: the session's amount settles after the environment's delay. */
  settlement: SettlementInput;
  /** Started with the payout. */
  payout: PayoutWorkflowInput;
  /** Signal-with-start of the payout's workflow: the payout's row committed a move. */
  payoutMoved: PayoutWorkflowInput & PayoutMove;
  subscription: SubscriptionWorkflowInput;
  /** Signal-with-start of the subscription's workflow: its row changed (a request, a paid invoice). */
  subscriptionChanged: SubscriptionWorkflowInput;
  /** Signal-with-start of the clock's workflow: an advance committed. */
  testClockAdvance: TestClockInput;
  /** `shipment:<shp>`, recorded with the shipment at checkout completion. */
  shipment: ShipmentWorkflowInput;
}

export type DurableStartType = keyof DurableStartInputs;

/** One recorded start: a type and its input, type-checked together. */
export type DurableStart = { [T in DurableStartType]: { workflowType: T; input: DurableStartInputs[T] } }[DurableStartType];

type DirectStarters = Omit<Starters, 'startRecorded'>;

/** How each durable start gets its workflow id and is started. "Already started" must count as started. */
const DURABLE: { [T in DurableStartType]: { workflowId(input: DurableStartInputs[T]): string; start(starters: DirectStarters, accountId: string, input: DurableStartInputs[T]): Promise<unknown> } } = {
  aiGeneration: { workflowId: (target) => workflowIds.aiGeneration(target.productId), start: (starters, _accountId, target) => starters.aiGeneration(target) },
  fileCleanup: { workflowId: (input) => workflowIds.fileCleanup(input.fileId), start: (starters, accountId, input) => starters.fileCleanup(accountId, input) },
  emailDelivery: { workflowId: (input) => workflowIds.emailDelivery(input.emailId), start: (starters, _accountId, input) => starters.emailDelivery(input) },
  checkoutSession: { workflowId: (input) => workflowIds.checkoutSession(input.sessionId), start: (starters, _accountId, input) => starters.checkoutSession(input) },
  checkoutCompleted: { workflowId: (input) => workflowIds.checkoutSession(input.sessionId), start: (starters, _accountId, input) => starters.checkoutCompleted(input) },
  manualOrder: { workflowId: (input) => workflowIds.manualOrder(input.orderId), start: (starters, _accountId, input) => starters.manualOrder(input) },
  settlement: { workflowId: (input) => workflowIds.settlement(input.sessionId), start: (starters, _accountId, input) => starters.settlement(input) },
  payout: { workflowId: (input) => workflowIds.payout(input.payoutId), start: (starters, _accountId, input) => starters.payout(input) },
  payoutMoved: { workflowId: (input) => workflowIds.payout(input.payoutId), start: (starters, _accountId, input) => starters.payoutMoved(input) },
  subscription: { workflowId: (input) => workflowIds.subscription(input.subscriptionId), start: (starters, _accountId, input) => starters.subscription(input) },
  subscriptionChanged: { workflowId: (input) => workflowIds.subscription(input.subscriptionId), start: (starters, _accountId, input) => starters.subscriptionChanged(input) },
  testClockAdvance: { workflowId: (input) => workflowIds.testClock(input.clockId), start: (starters, _accountId, input) => starters.testClockAdvance(input) },
  shipment: { workflowId: (input) => workflowIds.shipment(input.shipmentId), start: (starters, _accountId, input) => starters.shipment(input) },
};

export function durableWorkflowId<T extends DurableStartType>(workflowType: T, input: DurableStartInputs[T]): string {
  return DURABLE[workflowType].workflowId(input);
}

function isDurableStartType(type: string): type is DurableStartType {
  return Object.hasOwn(DURABLE, type);
}

/** gRPC status UNAVAILABLE (the server cannot be reached). */
const GRPC_UNAVAILABLE = 14;

export interface StarterOptions {
  taskQueue: string;
  /**
   * Tag workflows with the `AccountId` search attribute (so an operator finds a workspace's workflows in the
   * UI). Off only against the time-skipping test server, which has no custom search attributes.
   */
  searchAttributes?: boolean;
}

/**
 * The one module that starts and signals workflows. Every start goes through `start`, which attaches the
 * task queue and `AccountId` and treats "already started" (a repeated start of a meaningful, stable id) as
 * the no-op it is.
 */
export function createStarters(client: Client, { taskQueue, searchAttributes = true }: StarterOptions) {
  const tagged = (accountId: string) => (searchAttributes ? { typedSearchAttributes: [{ key: ACCOUNT_ID, value: accountId }] } : {});

  /** Starts `workflowId`; false when a workflow with that id already exists (running, or closed and not reusable). */
  async function start<W extends Workflow>(
    type: string,
    accountId: string,
    options: Omit<WorkflowStartOptions<W>, 'taskQueue' | 'typedSearchAttributes'>,
  ): Promise<boolean> {
    try {
      await client.workflow.start<W>(type, { ...options, taskQueue, ...tagged(accountId) } as WorkflowStartOptions<W>);
      return true;
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
      throw err;
    }
  }

  /**
   * Signal-with-start of a workflow whose id is never reused: a closed run (the session already fulfilled or
   * expired) answers "already started", which is the no-op it should be.
   */
  async function signalOnce(type: string, accountId: string, options: { workflowId: string; args: unknown[]; signal: string; signalArgs: unknown[] }): Promise<boolean> {
    try {
      await client.workflow.signalWithStart(type, { ...options, taskQueue, workflowIdReusePolicy: 'REJECT_DUPLICATE', ...tagged(accountId) });
      return true;
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
      throw err;
    }
  }

  const direct = {
    /**
     * Signal-with-start of `ai-generation:<productId>`: an open workflow for the product (e.g. one that has just
     * written `completed` and is about to close) is told to look at the product again instead of the reservation
     * being dropped; a closed or missing one is started anew under the same id.
     */
    async aiGeneration(target: AiGenerationTarget): Promise<void> {
      await client.workflow.signalWithStart<typeof aiGeneration, []>('aiGeneration', {
        workflowId: workflowIds.aiGeneration(target.productId),
        taskQueue,
        args: [target],
        signal: aiGenerationRequested,
        signalArgs: [],
        ...tagged(target.accountId),
      });
    },

    /** `file-cleanup:<fileId>`: a repeat (a retried request) finds the first one waiting. */
    fileCleanup(accountId: string, input: FileCleanupInput): Promise<boolean> {
      return start<typeof fileCleanup>('fileCleanup', accountId, { workflowId: workflowIds.fileCleanup(input.fileId), args: [input] });
    },

    /**
     * `webhook-delivery:<evt>:<whe>`. The id may never be reused (even after the run closed), so a second start
     * for the same pair, from a relay that crashed before marking its batch or from a concurrent relay, is a no-op.
     */
    webhookDelivery(input: WebhookDeliveryInput): Promise<boolean> {
      return start<typeof webhookDelivery>('webhookDelivery', input.accountId, {
        workflowId: workflowIds.webhookDelivery(input.eventId, input.endpointId),
        args: [input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      });
    },

    /** `email-delivery:<eml>`: never reused, so a repeated start (two relays, a retried request) sends nothing twice. */
    emailDelivery(input: EmailDeliveryInput): Promise<boolean> {
      return start<typeof emailDelivery>('emailDelivery', input.accountId, {
        workflowId: workflowIds.emailDelivery(input.emailId),
        args: [input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      });
    },

    /** `checkout-session:<cs>`, started with the session; never reused, so a repeated start is a no-op. */
    checkoutSession(input: CheckoutSessionInput): Promise<boolean> {
      return start<typeof checkoutSession>('checkoutSession', input.accountId, {
        workflowId: workflowIds.checkoutSession(input.sessionId),
        args: [input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      });
    },

    /** The session committed as `completed`: wake its workflow (starting it, should its start have been lost). */
    checkoutCompleted(input: CheckoutSessionInput): Promise<boolean> {
      return signalOnce('checkoutSession', input.accountId, {
        workflowId: workflowIds.checkoutSession(input.sessionId),
        args: [input],
        signal: checkoutCompleted.name,
        signalArgs: [],
      });
    },

    /** `manual-order:<mord>`, recorded by the confirming transaction; never reused, so the order is fulfilled once. */
    manualOrder(input: ManualOrderInput): Promise<boolean> {
      return start<typeof manualOrder>('manualOrder', input.accountId, {
        workflowId: workflowIds.manualOrder(input.orderId),
        args: [input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      });
    },

    /**
     * `settlement:<cs>`; never reused, so a repeated start settles nothing twice. No longer recorded (the settlement
     * sweep settles new credits); kept for the starts recorded before it, still pending in `workflow_starts`.
     */
    settlement(input: SettlementInput): Promise<boolean> {
      return start<typeof settlement>('settlement', input.accountId, {
        workflowId: workflowIds.settlement(input.sessionId),
        args: [input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      });
    },

    /** `payout:<pout>`, started with the payout; never reused (a move's signal-with-start may have started it already). */
    payout(input: PayoutWorkflowInput): Promise<boolean> {
      return start<typeof payout>('payout', input.accountId, {
        workflowId: workflowIds.payout(input.payoutId),
        args: [input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      });
    },

    /** The payout's row committed a move: tell its workflow (starting it, should its start not have happened yet). */
    payoutMoved({ status, ...input }: PayoutWorkflowInput & PayoutMove): Promise<boolean> {
      return signalOnce('payout', input.accountId, {
        workflowId: workflowIds.payout(input.payoutId),
        args: [input],
        signal: payoutMoved.name,
        signalArgs: [{ status }],
      });
    },

    /** `subscription:<sub>`, started with the subscription; never reused (its id names one subscription's whole life). */
    subscription(input: SubscriptionWorkflowInput): Promise<boolean> {
      return start<typeof subscription>('subscription', input.accountId, {
        workflowId: workflowIds.subscription(input.subscriptionId),
        args: [input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      });
    },

    /** `shipment:<shp>`, started with the shipment; never reused, so a repeated start is a no-op. */
    shipment(input: ShipmentWorkflowInput): Promise<boolean> {
      return start<typeof shipment>('shipment', input.accountId, {
        workflowId: workflowIds.shipment(input.shipmentId),
        args: [input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      });
    },

    /** The subscription's row changed: its workflow reads it again (a canceled one has ended, which is the no-op). */
    subscriptionChanged(input: SubscriptionWorkflowInput): Promise<boolean> {
      return signalOnce('subscription', input.accountId, {
        workflowId: workflowIds.subscription(input.subscriptionId),
        args: [input],
        signal: subscriptionChanged.name,
        signalArgs: [],
      });
    },

    /**
     * An advance of the clock committed: signal-with-start of `test-clock:<clock>`, whose run ends with each
     * advance played, so the id is reused by the next advance's run.
     */
    async testClockAdvance(input: TestClockInput): Promise<void> {
      await client.workflow.signalWithStart<typeof testClock, []>('testClock', {
        workflowId: workflowIds.testClock(input.clockId),
        taskQueue,
        args: [input],
        signal: testClockAdvanceRequested,
        signalArgs: [],
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        ...tagged(input.accountId),
      });
    },

    /** Best effort (the workflow also looks again on its own): the shipment's label can be rendered now. */
    async shipmentWaybillAssigned(shipmentId: string): Promise<void> {
      await client.workflow.getHandle(workflowIds.shipment(shipmentId)).signal(shipmentWaybillAssigned);
    },

    /** Best effort (the row holds the truth): lets the workflow show "awaiting confirmation" at once. */
    async checkoutPaymentSubmitted(sessionId: string): Promise<void> {
      await client.workflow.getHandle(workflowIds.checkoutSession(sessionId)).signal(checkoutPaymentSubmitted);
    },
  };

  return {
    ...direct,

    /**
     * Starts a row of the workflow-start outbox by its recorded type, within `timeoutMs` (the client's own
     * retries would otherwise wait ~20 s for an unreachable server). Resolves once the workflow exists.
     */
    async startRecorded(row: { workflowType: string; accountId: string; args: unknown }, timeoutMs: number): Promise<void> {
      const type = row.workflowType;
      if (!isDurableStartType(type)) throw new Error(`no durable start is defined for workflow type "${type}"`);
      // The args were written by recordStart for this very type.
      const start = DURABLE[type].start as (starters: DirectStarters, accountId: string, input: unknown) => Promise<unknown>;
      await client.connection.withDeadline(Date.now() + timeoutMs, () => start(direct, row.accountId, row.args));
    },
  };
}

export type Starters = ReturnType<typeof createStarters>;

/** The client's verdict that Temporal did not answer at all (down, unreachable, or past the deadline). */
export function isTemporalUnreachable(err: unknown): boolean {
  const cause = err instanceof ServiceError ? err.cause : err;
  return isGrpcDeadlineError(cause) || (isGrpcServiceError(cause) && cause.code === GRPC_UNAVAILABLE);
}
