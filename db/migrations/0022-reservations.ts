import type { QueryInterface } from 'sequelize';

// Stock held for a checkout session (or an order) while it may still be paid: which (variant, warehouse) and how
// much, so the release at expiry or the commit at completion moves exactly what was reserved, once
// (docs/decisions/inventory.md, Reservations).
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE stock_reservations (
      -- What holds the stock: a cs_ checkout session, an order id. One row per variant it reserved.
      reference text NOT NULL,
      variant_id text NOT NULL REFERENCES variants(id),
      warehouse_id text NOT NULL REFERENCES warehouses(id),
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      quantity bigint NOT NULL CHECK (quantity > 0),
      -- held until settled once: released (expiry, cancel) or committed (the goods left).
      status text NOT NULL DEFAULT 'held' CHECK (status IN ('held', 'released', 'committed')),
      created_at timestamptz NOT NULL DEFAULT now(),
      settled_at timestamptz,
      PRIMARY KEY (reference, variant_id),
      CHECK ((status = 'held') = (settled_at IS NULL))
    );
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`DROP TABLE stock_reservations;`);
}
