/** The workspace plans; caps per plan are in plan-limits.ts. */
export const PLANS = ['free', 'starter', 'pro'] as const;
export type Plan = (typeof PLANS)[number];
