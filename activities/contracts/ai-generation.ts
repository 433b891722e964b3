import type { ProductCopy, ProductCopyInput } from '../../lib/ai';
import type { AiGenerationTarget } from '../../workflows/messages';

/**
 * One reserved run of a product. `run` is the number of runs ever recorded for the product: reserve()
 * inserts one row under the product lock each time it sets `generating`, so it names the run exactly and
 * lets a late retry of an old run's write recognise that a newer run has taken over.
 */
export interface AiGenerationRun {
  run: number;
  product: ProductCopyInput;
}

/** The ai-generation workflow's activities (activities/ai-generation.ts). */
export type AiGenerationActivities = {
  loadAiGenerationRun(target: AiGenerationTarget): Promise<AiGenerationRun | null>;
  generateProductCopy(product: ProductCopyInput): Promise<ProductCopy>;
  applyProductCopy(input: AiGenerationTarget & { run: number; copy: ProductCopy }): Promise<boolean>;
  markAiGenerationFailed(input: AiGenerationTarget & { run: number }): Promise<boolean>;
};
