import type { QueryInterface } from 'sequelize';

// Provider mode for subscriptions and customers (docs/decisions/payment-module.md): the backend each
// subscription started on (fixed at creation, so switching the payment module never strands one), and the
// customer list ordered by creation, since `cust_` and `cus_` ids do not sort by time together.
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    ALTER TABLE subscriptions ADD COLUMN backend text NOT NULL DEFAULT 'local' CHECK (backend IN ('local', 'provider'));
    DROP INDEX customers_list;
    CREATE INDEX customers_list ON customers (account_id, environment, created_at DESC, id DESC);
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP INDEX customers_list;
    CREATE INDEX customers_list ON customers (account_id, environment, id DESC);
    ALTER TABLE subscriptions DROP COLUMN backend;
  `);
}
