import type { Plan } from './plans';

/**
 * Per-plan caps, the one table every quota check reads (docs/decisions/catalogue.md repeats it for merchants).
 * `null` means uncapped. Caps count per workspace and environment, so test data never eats into live quota.
 */
export interface PlanLimits {
  /** Non-archived products. */
  products: number | null;
  /** Sum of `fileSize` over the workspace's product files, in bytes. */
  storageBytes: number;
  /** AI generation runs started per calendar month (UTC). */
  aiGenerationsPerMonth: number;
  webhookEndpoints: number;
  customers: number | null;
  subscriptions: number | null;
  plans: number | null;
}

const GB = 1_000_000_000;

export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: {
    products: 10,
    storageBytes: 1 * GB,
    aiGenerationsPerMonth: 10,
    webhookEndpoints: 3,
    customers: 100,
    subscriptions: 50,
    plans: 3,
  },
  starter: {
    products: 100,
    storageBytes: 10 * GB,
    aiGenerationsPerMonth: 100,
    webhookEndpoints: 10,
    customers: 5_000,
    subscriptions: 1_000,
    plans: 20,
  },
  pro: {
    products: null,
    storageBytes: 100 * GB,
    aiGenerationsPerMonth: 1_000,
    webhookEndpoints: 50,
    customers: null,
    subscriptions: null,
    plans: null,
  },
};

export function planLimits(plan: Plan): PlanLimits {
  return PLAN_LIMITS[plan];
}
