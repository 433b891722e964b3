import type { QueryInterface } from 'sequelize';

// Inventory of the fulfillment module: warehouses, product variants, one stock row per (variant, warehouse) and
// the append-only movement log that every stock change writes with it (docs/decisions/inventory.md).
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE warehouses (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      name text NOT NULL,
      address text,
      city text,
      postal text,
      phone text,
      is_default boolean NOT NULL DEFAULT false,
      archived boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK (NOT (is_default AND archived))
    );
    -- At most one default per workspace and environment, also if the default-moving lock were ever bypassed.
    CREATE UNIQUE INDEX warehouses_one_default ON warehouses (account_id, environment) WHERE is_default;
    CREATE INDEX warehouses_list ON warehouses (account_id, environment, id) WHERE NOT archived;

    CREATE TABLE variants (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      product_id text NOT NULL REFERENCES products(id),
      sku text,
      name text NOT NULL,
      -- Whole currency units added to the product's price; the sum is kept at least 1 by the service, which
      -- holds the product row lock for every write to either.
      price_delta bigint NOT NULL DEFAULT 0,
      cost_price bigint CHECK (cost_price >= 0),
      low_stock_threshold integer CHECK (low_stock_threshold >= 0),
      is_default boolean NOT NULL DEFAULT false,
      archived boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK (NOT (is_default AND archived))
    );
    -- Exactly one default per product: the service moves it under the product row lock; this makes two impossible.
    CREATE UNIQUE INDEX variants_one_default ON variants (product_id) WHERE is_default;
    CREATE INDEX variants_product ON variants (account_id, environment, product_id, id);
    CREATE INDEX variants_list ON variants (account_id, environment, id DESC);
    CREATE INDEX variants_low_stock ON variants (account_id, environment, id DESC) WHERE low_stock_threshold IS NOT NULL AND NOT archived;

    -- Created on the first movement of a (variant, warehouse); a row never written reads as zeros.
    CREATE TABLE stock_levels (
      variant_id text NOT NULL REFERENCES variants(id),
      warehouse_id text NOT NULL REFERENCES warehouses(id),
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      available bigint NOT NULL DEFAULT 0 CHECK (available >= 0),
      reserved bigint NOT NULL DEFAULT 0 CHECK (reserved >= 0),
      incoming bigint NOT NULL DEFAULT 0 CHECK (incoming >= 0),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (variant_id, warehouse_id)
    );
    CREATE INDEX stock_levels_warehouse ON stock_levels (warehouse_id);

    -- One row per change of a stock row, written in its transaction under its row lock: per (variant,
    -- warehouse) the deltas sum to the balances. seq is drawn under that lock, so it orders a row's movements
    -- as they happened (ULIDs from two processes in one millisecond need not).
    CREATE TABLE stock_movements (
      id text PRIMARY KEY,
      seq bigserial NOT NULL UNIQUE,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      variant_id text NOT NULL REFERENCES variants(id),
      warehouse_id text NOT NULL REFERENCES warehouses(id),
      kind text NOT NULL CHECK (kind IN ('adjust', 'reserve', 'release', 'commit', 'restock')),
      reason text NOT NULL,
      delta bigint NOT NULL,
      balance bigint NOT NULL CHECK (balance >= 0),
      reserved_delta bigint NOT NULL DEFAULT 0,
      reserved_balance bigint NOT NULL CHECK (reserved_balance >= 0),
      incoming_delta bigint NOT NULL DEFAULT 0,
      incoming_balance bigint NOT NULL CHECK (incoming_balance >= 0),
      actor_type text NOT NULL CHECK (actor_type IN ('api_key', 'workflow')),
      actor_id text NOT NULL,
      reference text,
      note text,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp()
    );
    CREATE INDEX stock_movements_variant ON stock_movements (account_id, environment, variant_id, seq);
    CREATE INDEX stock_movements_list ON stock_movements (account_id, environment, seq);
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP TABLE stock_movements;
    DROP TABLE stock_levels;
    DROP TABLE variants;
    DROP TABLE warehouses;
  `);
}
