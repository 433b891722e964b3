import { ActivityFailure, CancellationScope, isCancellation, proxyActivities, setHandler } from '@temporalio/workflow';
import type { AiGenerationActivities } from '../activities/contracts/ai-generation';
import type { AiGenerationState } from '../domain/products/states';
import { lifecycleState } from './lifecycle';
import { aiGenerationRequested, type AiGenerationOutcome, type AiGenerationTarget } from './messages';

/** Bounded: a provider that keeps failing ends the run as `failed` after this many calls. */
export const AI_PROVIDER_MAX_ATTEMPTS = 5;

// The provider call: backoff 5s, 10s, 20s, 40s between the five attempts. The timeout exceeds the largest
// AI_TIMEOUT (5m) so the HTTP client, not Temporal, normally ends a slow call.
const { generateProductCopy } = proxyActivities<AiGenerationActivities>({
  startToCloseTimeout: '6 minutes',
  retry: {
    initialInterval: '5 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: AI_PROVIDER_MAX_ATTEMPTS,
  },
});

// Database reads and writes retry until they land: a run must not stay 'generating' because Postgres blinked.
const { loadAiGenerationRun, applyProductCopy, markAiGenerationFailed } = proxyActivities<AiGenerationActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * `ai-generation:<productId>`: generates copy for each run reserved on the product (ai_status
 * 'generating'), then records `completed` or `failed`. Started by signal-with-start; a signal that arrives
 * while a run is in progress or just finishing makes it look at the product once more, so a run reserved
 * as this workflow was closing is still served. Returns one outcome per look ('skipped': nothing reserved).
 */
export async function aiGeneration(target: AiGenerationTarget): Promise<AiGenerationOutcome[]> {
  const lifecycle = lifecycleState<AiGenerationState>();
  let requested = true;
  setHandler(aiGenerationRequested, () => {
    requested = true;
  });

  const outcomes: AiGenerationOutcome[] = [];
  while (requested) {
    requested = false;
    const pending = await loadAiGenerationRun(target);
    if (!pending) {
      outcomes.push('skipped');
      // Nothing reserved: a run this look follows keeps its outcome.
      if (outcomes.every((outcome) => outcome === 'skipped')) lifecycle('idle');
      continue;
    }
    lifecycle('generating');
    try {
      const copy = await generateProductCopy(pending.product);
      await applyProductCopy({ ...target, run: pending.run, copy });
      outcomes.push('completed');
      lifecycle('completed');
    } catch (err) {
      if (isCancellation(err)) {
        // An operator canceled the workflow: the product must not stay 'generating' forever.
        await CancellationScope.nonCancellable(() => markAiGenerationFailed({ ...target, run: pending.run }));
        lifecycle('failed');
        throw err;
      }
      if (!(err instanceof ActivityFailure)) throw err;
      await markAiGenerationFailed({ ...target, run: pending.run });
      outcomes.push('failed');
      lifecycle('failed');
    }
  }
  return outcomes;
}
