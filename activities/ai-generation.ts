import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Sequelize } from 'sequelize';
import { completeAiRun, failAiRun, readPendingAiRun, type PendingAiRun } from '../domain/products';
import { TextGenerationError, type ProductCopy, type ProductCopyInput, type TextGenerator } from '../lib/ai';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import type { AiGenerationTarget } from '../workflows/messages';
import type { AiGenerationActivities } from './contracts/ai-generation';

/** The ai-generation workflow's steps: the run's rules are domain/products/ai-generation-run.ts, the provider call is here. */
export function createAiGenerationActivities({
  sequelize,
  logger,
  config,
  textGenerator,
}: {
  sequelize: Sequelize;
  logger: Logger;
  config: Pick<Config, 'PUBLIC_BASE_URL'>;
  textGenerator: TextGenerator;
}): AiGenerationActivities {
  return {
    /** Reads what the generator needs; null when there is nothing to do (not 'generating', or gone). */
    async loadAiGenerationRun(target: AiGenerationTarget): Promise<PendingAiRun | null> {
      return readPendingAiRun({ sequelize }, target);
    },

    /** The provider call; no side effects here, so Temporal may retry it freely. */
    async generateProductCopy(product: ProductCopyInput): Promise<ProductCopy> {
      const { info, cancellationSignal } = Context.current();
      try {
        return await textGenerator.generateProductCopy(product, cancellationSignal);
      } catch (err) {
        if (!(err instanceof TextGenerationError)) throw err;
        logger.warn(
          {
            workflowId: info.workflowExecution?.workflowId,
            attempt: info.attempt,
            status: err.status,
            retryable: err.retryable,
            provider: textGenerator.kind,
          },
          `AI generation attempt failed: ${err.message}`,
        );
        throw ApplicationFailure.create({
          type: 'TextGenerationError',
          message: err.message,
          nonRetryable: !err.retryable,
          details: [{ status: err.status ?? null }],
        });
      }
    },

    /** Idempotent: ends the run completed with the copy; false when it already ended or a newer run took over. */
    async applyProductCopy(input: AiGenerationTarget & { run: number; copy: ProductCopy }): Promise<boolean> {
      const { run, copy, ...target } = input;
      return completeAiRun({ sequelize, config }, target, run, copy);
    },

    /** Idempotent: marks the run failed unless it already ended or a newer run took over. */
    async markAiGenerationFailed(input: AiGenerationTarget & { run: number }): Promise<boolean> {
      const { run, ...target } = input;
      return failAiRun({ sequelize, config }, target, run);
    },
  };
}
