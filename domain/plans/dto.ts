import type { Attributes } from 'sequelize';
import type { BillingPlan, PlanPrice } from '../../db/models';

// Rows of a list page arrive raw, with bigint amounts as strings: Number() is exact below 2^53.

export function toPlanPriceDto(row: Attributes<PlanPrice>) {
  return {
    id: row.id,
    accountId: row.accountId,
    planId: row.planId,
    amount: Number(row.amount),
    currency: row.currency,
    interval: row.interval,
    nickname: row.nickname,
    active: row.active,
    createdAt: row.createdAt.toISOString(),
  };
}

export function toPlanDto(row: Attributes<BillingPlan>, prices: Attributes<PlanPrice>[]) {
  return {
    id: row.id,
    accountId: row.accountId,
    name: row.name,
    description: row.description,
    amount: Number(row.amount),
    currency: row.currency,
    interval: row.interval,
    intervalCount: row.intervalCount,
    trialDays: row.trialDays,
    active: row.active,
    prices: prices.map(toPlanPriceDto),
    metadata: row.metadata,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export type PlanDto = ReturnType<typeof toPlanDto>;
export type PlanPriceDto = ReturnType<typeof toPlanPriceDto>;
