import { ApplicationFailure, Context } from '@temporalio/activity';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { METADATA_MAX_KEYS, METADATA_VALUE_MAX, emitProductUpdated } from '../domain/products';
import { TextGenerationError, type ProductCopy, type ProductCopyInput, type TextGenerator } from '../lib/ai';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import type { AiGenerationTarget } from '../workflows/messages';
import type { AiGenerationActivities, AiGenerationRun } from './contracts/ai-generation';

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

interface ProductRow {
  name: string;
  type: ProductCopyInput['type'];
  description: string | null;
  price: string;
  currency: string;
  tags: string[];
  brand: string | null;
  google_product_category: string | null;
  ai_status: string | null;
  run: number;
}

const RUN_COUNT = `(SELECT count(*)::int FROM ai_generation_runs r
   WHERE r.product_id = p.id AND r.account_id = p.account_id AND r.environment = p.environment)`;

const SCOPE = `id = :productId AND account_id = :accountId AND environment = :environment`;

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
  /**
   * Ends the run with `write` when the product is still in this run and 'generating'; false (nothing
   * written) otherwise, which is what makes repeating a write a no-op. The product row lock orders it
   * against reserve(). The end state changes the product object, so product.updated is emitted with it.
   */
  async function finishRun(
    target: AiGenerationTarget,
    run: number,
    write: (tx: Transaction, current: { metadata: Record<string, string> }) => Promise<void>,
  ): Promise<boolean> {
    return sequelize.transaction(async (tx) => {
      const [current] = await sequelize.query<{ ai_status: string | null; metadata: Record<string, string>; slug: string | null; run: number }>(
        `SELECT p.ai_status, p.metadata, a.slug, ${RUN_COUNT} AS run
           FROM products p JOIN accounts a ON a.id = p.account_id
          WHERE p.id = :productId AND p.account_id = :accountId AND p.environment = :environment
          FOR UPDATE OF p`,
        { replacements: { ...target }, type: QueryTypes.SELECT, transaction: tx },
      );
      if (!current || current.ai_status !== 'generating' || current.run !== run) return false;
      await write(tx, current);
      const { productId, ...tenant } = target;
      await emitProductUpdated(tx, tenant, { workspaceSlug: current.slug, baseUrl: config.PUBLIC_BASE_URL }, productId);
      return true;
    });
  }

  return {
    /** Reads what the generator needs; null when there is nothing to do (not 'generating', or gone). */
    async loadAiGenerationRun(target: AiGenerationTarget): Promise<AiGenerationRun | null> {
      const [row] = await sequelize.query<ProductRow>(
        `SELECT p.name, p.type, p.description, p.price, p.currency, p.tags, p.brand, p.google_product_category,
                p.ai_status, ${RUN_COUNT} AS run
           FROM products p
          WHERE p.id = :productId AND p.account_id = :accountId AND p.environment = :environment`,
        { replacements: { ...target }, type: QueryTypes.SELECT },
      );
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

    /**
     * Idempotent: rewrites the description, writes the three metadata keys over the existing map (other
     * keys kept), marks the run completed. Thumbnail and cover images are not in the statement at all.
     */
    async applyProductCopy(input: AiGenerationTarget & { run: number; copy: ProductCopy }): Promise<boolean> {
      const { run, copy, ...target } = input;
      return finishRun(target, run, async (tx, current) => {
        await sequelize.query(
          `UPDATE products SET description = :description, metadata = CAST(:metadata AS jsonb), ai_status = 'completed',
                  updated_at = now()
            WHERE ${SCOPE}`,
          {
            replacements: { ...target, description: copy.description, metadata: JSON.stringify(mergeAiMetadata(current.metadata, copy)) },
            type: QueryTypes.UPDATE,
            transaction: tx,
          },
        );
      });
    },

    /** Idempotent: marks the run failed unless it already ended or a newer run took over. */
    async markAiGenerationFailed(input: AiGenerationTarget & { run: number }): Promise<boolean> {
      const { run, ...target } = input;
      return finishRun(target, run, async (tx) => {
        await sequelize.query(`UPDATE products SET ai_status = 'failed', updated_at = now() WHERE ${SCOPE}`, {
          replacements: { ...target },
          type: QueryTypes.UPDATE,
          transaction: tx,
        });
      });
    },
  };
}
