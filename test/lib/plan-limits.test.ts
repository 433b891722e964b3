import { planLimits } from '../../lib/plan-limits';

// The caps as the decision documents publish them to merchants: a change to the table must change the docs too.

describe('plan limits', () => {
  it('cap products, storage and monthly AI generations as catalogue.md lists them', () => {
    const quotas = (plan: 'free' | 'starter' | 'pro') => {
      const { products, storageBytes, aiGenerationsPerMonth } = planLimits(plan);
      return [products, storageBytes, aiGenerationsPerMonth];
    };
    expect([quotas('free'), quotas('starter'), quotas('pro')]).toEqual([
      [10, 1_000_000_000, 10],
      [100, 10_000_000_000, 100],
      [null, 100_000_000_000, 1_000],
    ]);
  });

  it('cap webhook endpoints as webhooks.md lists them', () => {
    expect([planLimits('free').webhookEndpoints, planLimits('starter').webhookEndpoints, planLimits('pro').webhookEndpoints]).toEqual([3, 10, 50]);
  });

  it('cap customers, subscriptions and active plans as billing.md lists them; pro is uncapped', () => {
    expect(planLimits('free')).toMatchObject({ customers: 100, subscriptions: 50, plans: 3 });
    expect(planLimits('starter')).toMatchObject({ customers: 5_000, subscriptions: 1_000, plans: 20 });
    expect(planLimits('pro')).toMatchObject({ customers: null, subscriptions: null });
  });
});
