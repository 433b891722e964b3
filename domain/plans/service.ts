import { Op, type Transaction } from 'sequelize';
import { BillingPlan, PlanPrice } from '../../db/models';
import { listPage, type PageRequest } from '../../db/pagination';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { notFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { AuthContext } from '../auth-context';
import { enforcePlanCap } from '../plan-caps';
import type { ServiceDeps } from '../service-deps';
import { toPlanDto, toPlanPriceDto, type PlanDto, type PlanPriceDto } from './dto';
import type { CreatePlanBody, CreatePlanPriceBody, UpdatePlanBody, UpdatePlanPriceBody } from './inputs';

export interface PlanListQuery extends PageRequest {
  /** Archived (`active: false`) plans are left out unless asked for (docs/decisions/billing.md). */
  includeArchived?: boolean;
}

/** Recurring plans and their price tiers; no events (document 2 reserves the plan events and never emits them). */
export function createPlanService({ sequelize }: Pick<ServiceDeps, 'sequelize'>) {
  async function pricesOf(planIds: string[], tx?: Transaction): Promise<Map<string, PlanPrice[]>> {
    const byPlan = new Map<string, PlanPrice[]>(planIds.map((id) => [id, []]));
    if (planIds.length === 0) return byPlan;
    const prices = await PlanPrice.findAll({ where: { planId: { [Op.in]: planIds } }, order: [['id', 'ASC']], transaction: tx });
    for (const price of prices) byPlan.get(price.planId)?.push(price);
    return byPlan;
  }

  async function dtoOf(plan: BillingPlan, tx?: Transaction): Promise<PlanDto> {
    return toPlanDto(plan.get(), ((await pricesOf([plan.id], tx)).get(plan.id) ?? []).map((p) => p.get()));
  }

  async function lockedPlan(tx: Transaction, tenant: Tenant, id: string): Promise<BillingPlan> {
    const plan = await BillingPlan.findOne({ where: { id, ...tenant }, lock: tx.LOCK.UPDATE, transaction: tx });
    if (!plan) throw notFound('Plan');
    return plan;
  }

  return {
    async create(auth: AuthContext, input: CreatePlanBody): Promise<PlanDto> {
      const tenant = tenantWhere(auth);
      return sequelize.transaction(async (tx) => {
        if (input.active) await enforcePlanCap(tx, auth, 'plans');
        const plan = await BillingPlan.create({ id: newId('plan'), ...tenant, ...input, metadata: input.metadata ?? {} }, { transaction: tx });
        return toPlanDto(plan.get(), []);
      });
    },

    async list(auth: AuthContext, query: PlanListQuery) {
      const page = await listPage(sequelize, BillingPlan, {
        tenant: auth,
        where: query.includeArchived ? {} : { active: true },
        page: query,
        idPrefix: 'plan',
        toDto: (row) => row,
      });
      const prices = await pricesOf(page.data.map((plan) => plan.id));
      return { ...page, data: page.data.map((plan) => toPlanDto(plan, (prices.get(plan.id) ?? []).map((p) => p.get()))) };
    },

    async retrieve(auth: AuthContext, id: string): Promise<PlanDto> {
      const plan = await BillingPlan.findOne({ where: { id, ...tenantWhere(auth) } });
      if (!plan) throw notFound('Plan');
      return dtoOf(plan);
    },

    /** An amount change applies from the next period a subscription starts; periods already invoiced keep theirs. */
    async update(auth: AuthContext, id: string, input: UpdatePlanBody): Promise<PlanDto> {
      return sequelize.transaction(async (tx) => {
        const plan = await lockedPlan(tx, tenantWhere(auth), id);
        // Re-activating takes a slot under the cap again.
        if (input.active === true && !plan.active) await enforcePlanCap(tx, auth, 'plans');
        const { metadata, ...fields } = input;
        plan.set({ ...fields, ...(metadata !== undefined ? { metadata: metadata ?? {} } : {}) });
        plan.changed('updatedAt', true);
        await plan.save({ transaction: tx });
        return dtoOf(plan, tx);
      });
    },

    /** Soft archive (`active: false`): running subscriptions continue; new ones are refused. Repeating it is a no-op. */
    async archive(auth: AuthContext, id: string): Promise<PlanDto> {
      return sequelize.transaction(async (tx) => {
        const plan = await lockedPlan(tx, tenantWhere(auth), id);
        if (plan.active) await plan.update({ active: false }, { transaction: tx });
        return dtoOf(plan, tx);
      });
    },

    async addPrice(auth: AuthContext, planId: string, input: CreatePlanPriceBody): Promise<PlanPriceDto> {
      const tenant = tenantWhere(auth);
      return sequelize.transaction(async (tx) => {
        await lockedPlan(tx, tenant, planId);
        const price = await PlanPrice.create({ id: newId('price'), ...tenant, planId, ...input }, { transaction: tx });
        return toPlanPriceDto(price.get());
      });
    },

    async updatePrice(auth: AuthContext, priceId: string, input: UpdatePlanPriceBody): Promise<PlanPriceDto> {
      return sequelize.transaction(async (tx) => {
        const price = await PlanPrice.findOne({ where: { id: priceId, ...tenantWhere(auth) }, lock: tx.LOCK.UPDATE, transaction: tx });
        if (!price) throw notFound('Price');
        price.set(input);
        price.changed('updatedAt', true);
        await price.save({ transaction: tx });
        return toPlanPriceDto(price.get());
      });
    },
  };
}

export type PlanService = ReturnType<typeof createPlanService>;
