import type { QueryInterface } from 'sequelize';

// Discount codes and their redemptions. Amounts (value of fixed types, min_purchase_amount, redemption amount)
// are integers in the currency's smallest unit (lib/money.ts).
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE discount_codes (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      code text NOT NULL CHECK (code ~ '^[A-Za-z0-9_-]{1,50}$'),
      description text,
      type text NOT NULL CHECK (type IN ('percent', 'fixed', 'shipping_percent', 'shipping_fixed')),
      value bigint NOT NULL CHECK (value > 0 AND (type NOT IN ('percent', 'shipping_percent') OR value <= 100)),
      currency text NOT NULL CHECK (currency IN ('IDR', 'USD')),
      scope text NOT NULL DEFAULT 'cart' CHECK (scope IN ('cart', 'products', 'tags')),
      product_ids text[],
      tag_filter text[],
      min_purchase_amount bigint CHECK (min_purchase_amount >= 0),
      max_uses_total integer CHECK (max_uses_total > 0),
      max_uses_per_customer integer CHECK (max_uses_per_customer > 0),
      uses_total integer NOT NULL DEFAULT 0 CHECK (uses_total >= 0),
      starts_at timestamptz,
      expires_at timestamptz,
      active boolean NOT NULL DEFAULT true,
      public boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK (starts_at < expires_at),
      CHECK (scope <> 'products' OR cardinality(product_ids) > 0),
      CHECK (scope <> 'tags' OR cardinality(tag_filter) > 0)
    );
    -- Codes are case-insensitive: SUMMER and summer are one code, also under two concurrent creates.
    CREATE UNIQUE INDEX discount_codes_code ON discount_codes (account_id, environment, lower(code));
    -- The list: newest first, keyset on id, optionally by active.
    CREATE INDEX discount_codes_list ON discount_codes (account_id, environment, active, id DESC);

    -- One row per applied use; written at checkout completion, counted for the per-customer limit.
    CREATE TABLE discount_redemptions (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      discount_id text NOT NULL REFERENCES discount_codes(id),
      -- The checkout session or order that used the code: one use per reference, so a retry counts once.
      reference text NOT NULL,
      -- Stored lowercased: per-customer counting by e-mail is case-insensitive.
      customer_email text CHECK (customer_email = lower(customer_email)),
      customer_id text,
      amount bigint NOT NULL CHECK (amount >= 0),
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (discount_id, reference)
    );
    CREATE INDEX discount_redemptions_customer_id ON discount_redemptions (discount_id, customer_id) WHERE customer_id IS NOT NULL;
    CREATE INDEX discount_redemptions_customer_email ON discount_redemptions (discount_id, customer_email) WHERE customer_email IS NOT NULL;
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP TABLE discount_redemptions;
    DROP TABLE discount_codes;
  `);
}
