import type { Transaction } from 'sequelize';
import { countAiRunsThisMonth, insertAiRun, markProductGenerating, readAiStatus } from '../../db/ai-generation';
import { lockAccount } from '../../db/locks';
import type { AiStatus, Plan } from '../../db/models';
import type { Tenant } from '../../db/tenancy';
import { notFound, quotaExceeded } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { planLimits } from '../../lib/plan-limits';
import { workflowIds, type AiGenerationTarget } from '../../workflows/messages';
import type { ServiceDeps } from '../service-deps';
import { recordStart, startRecordedNow } from '../workflow-starts';

export type AiReservation = 'reserved' | 'already_running';

export interface AiGenerationService {
  /**
   * In the caller's transaction (caller holds the product row lock): 'already_running' when ai_status is
   * 'generating' (nothing written, no quota used); 403 QUOTA_EXCEEDED when the month's runs are used up
   * (nothing written); else records a run in ai_generation_runs, sets ai_status='generating', ai_generated=true,
   * and records the start of `ai-generation:<productId>` (domain/workflow-starts.ts), so the run's workflow
   * starts whenever Temporal answers, even if it is down at the commit.
   * `currentStatus`: the product's ai_status when the caller already read it in this transaction (null for
   * none); it is then not read again. Omitted: it is read here, and a missing product is 404.
   */
  reserve(tx: Transaction, tenant: Tenant, plan: Plan, productId: string, currentStatus?: AiStatus | null): Promise<AiReservation>;
  /**
   * After commit, best effort: starts what `reserve` recorded for the product now rather than at the start
   * relay's next pass. Signal-with-start: an open workflow (one finishing the previous run, say) is only told
   * to look at the product again, so the new run is not lost. Never throws; nothing recorded, nothing started.
   */
  start(target: AiGenerationTarget): Promise<void>;
}

export function createAiGenerationService(deps: Pick<ServiceDeps, 'sequelize' | 'starters' | 'logger'>): AiGenerationService {
  return {
    async reserve(tx, tenant, plan, productId, currentStatus) {
      const scope = { accountId: tenant.accountId, environment: tenant.environment, productId };
      let aiStatus = currentStatus;
      if (aiStatus === undefined) {
        const product = await readAiStatus(tx, scope);
        if (!product) throw notFound('Product');
        aiStatus = product.ai_status;
      }
      // A request while a run is in flight joins it: it starts nothing, so it neither needs nor uses quota.
      if (aiStatus === 'generating') return 'already_running';

      // The account row lock serialises every reservation of the workspace (both environments), so two
      // concurrent requests at the cap cannot both count N-1 and insert. NO KEY UPDATE, like the products
      // service's quota lock: it does not conflict with the key-share locks foreign keys take, so two creates
      // that each inserted a product (key-sharing the account) cannot deadlock upgrading to this lock.
      await lockAccount(tx, tenant.accountId);
      const used = await countAiRunsThisMonth(tx, scope);
      const limit = planLimits(plan).aiGenerationsPerMonth;
      if (used >= limit) {
        throw quotaExceeded(`Monthly AI generation quota of ${limit} runs for the ${plan} plan is used up`);
      }

      await insertAiRun(tx, scope, newId('aigen'));
      await markProductGenerating(tx, scope);
      await recordStart(tx, tenant, { workflowType: 'aiGeneration', input: scope });
      return 'reserved';
    },

    start(target) {
      return startRecordedNow(deps, workflowIds.aiGeneration(target.productId));
    },
  };
}
