import type { QueryInterface } from 'sequelize';

// A provider-mode invoice's charge that the provider answered `pending` (a method that confirms later): kept until
// it succeeds or fails, so a dunning retry asks about it instead of charging the customer a second time
// (docs/decisions/payment-module.md, Subscriptions).
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query('ALTER TABLE invoices ADD COLUMN provider_charge_id text');
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query('ALTER TABLE invoices DROP COLUMN provider_charge_id');
}
