import type { Sequelize, Transaction } from 'sequelize';
import { lockAiRunProduct, markAiRunFailed, readAiRunProduct, writeAiProductCopy, type LockedAiRunRow } from '../../db/ai-generation';
import type { ProductCopy, ProductCopyInput } from '../../lib/ai';
import type { Config } from '../../lib/config';
import type { AiGenerationTarget } from '../../workflows/messages';
import { emitProductUpdated } from './dto';
import { METADATA_MAX_KEYS, METADATA_VALUE_MAX } from './inputs';

/**
 * A run's life after its reservation (ai-generation.ts): what the generator is given, and how the run ends. The
 * worker's ai-generation activities call these; the provider call between them is the activity's own.
 */

/**
 * One reserved run of a product. `run` is the number of runs ever recorded for the product: reserve()
 * inserts one row under the product lock each time it sets `generating`, so it names the run exactly and
 * lets a late retry of an old run's write recognise that a newer run has taken over.
 */
export interface PendingAiRun {
  run: number;
  product: ProductCopyInput;
}

/** Metadata keys the result is stored under (metadata is string-to-string; bullets are newline-joined). */
export const AI_METADATA_KEYS = {
  seoTitle: 'seoTitle',
  metaDescription: 'metaDescription',
  featureBullets: 'featureBullets',
} as const;

/** As many whole bullets as fit in one metadata value (the schema caps a bullet well below it). */
function fitBullets(bullets: string[]): string {
  let joined = '';
  for (const bullet of bullets) {
    const next = joined ? `${joined}\n${bullet}` : bullet;
    if (next.length > METADATA_VALUE_MAX) break;
    joined = next;
  }
  return joined;
}

/**
 * The existing map with the AI keys written over it. A map already at the key cap keeps its own keys: an
 * AI key is added only where it replaces one of ours or still fits.
 */
export function mergeAiMetadata(existing: Record<string, string>, copy: ProductCopy): Record<string, string> {
  const generated: Record<string, string> = {
    [AI_METADATA_KEYS.seoTitle]: copy.seoTitle,
    [AI_METADATA_KEYS.metaDescription]: copy.metaDescription,
    [AI_METADATA_KEYS.featureBullets]: fitBullets(copy.featureBullets),
  };
  const merged = { ...existing };
  for (const [key, value] of Object.entries(generated)) {
    if (key in merged || Object.keys(merged).length < METADATA_MAX_KEYS) merged[key] = value;
  }
  return merged;
}

export interface AiRunDeps {
  sequelize: Sequelize;
  config: Pick<Config, 'PUBLIC_BASE_URL'>;
}

/** Reads what the generator needs; null when there is nothing to do (not 'generating', or gone). */
export async function readPendingAiRun({ sequelize }: Pick<AiRunDeps, 'sequelize'>, target: AiGenerationTarget): Promise<PendingAiRun | null> {
  const row = await readAiRunProduct(sequelize, target);
  if (!row || row.ai_status !== 'generating') return null;
  return {
    run: row.run,
    product: {
      name: row.name,
      type: row.type,
      description: row.description,
      price: Number(row.price),
      currency: row.currency,
      tags: row.tags,
      brand: row.brand,
      googleProductCategory: row.google_product_category,
    },
  };
}

/**
 * Ends the run with `write` when the product is still in this run and 'generating'; false (nothing
 * written) otherwise, which is what makes repeating a write a no-op. The product row lock orders it
 * against reserve(). The end state changes the product object, so product.updated is emitted with it.
 */
async function finishRun(
  { sequelize, config }: AiRunDeps,
  target: AiGenerationTarget,
  run: number,
  write: (tx: Transaction, current: Pick<LockedAiRunRow, 'metadata'>) => Promise<void>,
): Promise<boolean> {
  return sequelize.transaction(async (tx) => {
    const current = await lockAiRunProduct(sequelize, tx, target);
    if (!current || current.ai_status !== 'generating' || current.run !== run) return false;
    await write(tx, current);
    const { productId, ...tenant } = target;
    await emitProductUpdated(tx, tenant, { workspaceSlug: current.slug, baseUrl: config.PUBLIC_BASE_URL }, productId);
    return true;
  });
}

/**
 * Idempotent: rewrites the description, writes the three metadata keys over the existing map (other
 * keys kept), marks the run completed. Thumbnail and cover images are not in the statement at all.
 */
export function completeAiRun(deps: AiRunDeps, target: AiGenerationTarget, run: number, copy: ProductCopy): Promise<boolean> {
  return finishRun(deps, target, run, (tx, current) =>
    writeAiProductCopy(deps.sequelize, tx, target, { description: copy.description, metadata: mergeAiMetadata(current.metadata, copy) }),
  );
}

/** Idempotent: marks the run failed unless it already ended or a newer run took over. */
export function failAiRun(deps: AiRunDeps, target: AiGenerationTarget, run: number): Promise<boolean> {
  return finishRun(deps, target, run, (tx) => markAiRunFailed(deps.sequelize, tx, target));
}
