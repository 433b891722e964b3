import type { QueryInterface } from 'sequelize';

// Manual orders (docs/decisions/manual-orders.md): bank-transfer style orders of workspaces without the payment
// module, placed by the public manual checkout and moved by the merchant through PATCH. The order numbers come
// from one counter row per workspace environment, incremented in the order's own transaction, so a rolled-back
// order gives its number back and two concurrent orders never share one: the sequence has no gap and no repeat.
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE manual_order_numbers (
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      -- The last sequence number handed out; the next order takes last_seq + 1 under this row's lock.
      last_seq bigint NOT NULL CHECK (last_seq > 0),
      PRIMARY KEY (account_id, environment)
    );

    CREATE TABLE manual_orders (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      seq bigint NOT NULL CHECK (seq > 0),
      order_number text NOT NULL,
      -- Priced lines ([{lineKey, productId, productName, productType, licenseEnabled, variantId, variantName,
      -- quantity, unitAmount, amount}]), a snapshot of the catalogue at placement.
      lines jsonb NOT NULL CHECK (jsonb_typeof(lines) = 'array' AND jsonb_array_length(lines) > 0),
      -- The first line, as document 1's single-product fields show it.
      product_id text NOT NULL REFERENCES products(id),
      product_name text NOT NULL,
      variant_id text,
      variant_name text,
      quantity integer NOT NULL CHECK (quantity > 0),
      currency text NOT NULL,
      subtotal bigint NOT NULL CHECK (subtotal >= 0),
      discount_id text REFERENCES discount_codes(id),
      discount_code text,
      discount_amount bigint NOT NULL DEFAULT 0 CHECK (discount_amount >= 0 AND discount_amount <= subtotal),
      -- Set at confirmation: false when the code ran out of uses between placement and confirmation.
      discount_applied boolean,
      amount bigint NOT NULL CHECK (amount >= 0),
      payment_status text NOT NULL DEFAULT 'awaiting_payment' CHECK (payment_status IN ('awaiting_payment', 'payment_confirmed', 'canceled')),
      fulfillment_status text NOT NULL DEFAULT 'preparing' CHECK (fulfillment_status IN ('preparing', 'ready_to_ship', 'shipped', 'delivered')),
      payment_method text NOT NULL DEFAULT 'bank_transfer' CHECK (payment_method IN ('bank_transfer', 'qris', 'whatsapp', 'cod')),
      customer_name text,
      customer_email text NOT NULL,
      customer_phone text,
      shipping_address jsonb,
      referral_code text,
      metadata jsonb NOT NULL DEFAULT '{}',
      tracking_courier text,
      tracking_number text,
      merchant_payment_note text,
      merchant_shipping_note text,
      placed_at timestamptz NOT NULL DEFAULT now(),
      payment_confirmed_at timestamptz,
      canceled_at timestamptz,
      shipped_at timestamptz,
      delivered_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (account_id, environment, seq),
      UNIQUE (account_id, environment, order_number),
      CHECK ((payment_status = 'payment_confirmed') = (payment_confirmed_at IS NOT NULL)),
      CHECK ((payment_status = 'canceled') = (canceled_at IS NOT NULL)),
      -- A merchant may mark an order delivered without shipping it first (handed over in person): no shipped_at then.
      CHECK (fulfillment_status <> 'shipped' OR shipped_at IS NOT NULL),
      CHECK ((fulfillment_status = 'delivered') = (delivered_at IS NOT NULL))
    );
    -- The merchant list, newest first (ids are time-ordered like placed_at), with either status filter.
    CREATE INDEX manual_orders_list ON manual_orders (account_id, environment, id DESC);
    CREATE INDEX manual_orders_payment_status ON manual_orders (account_id, environment, payment_status, id DESC);
    CREATE INDEX manual_orders_fulfillment_status ON manual_orders (account_id, environment, fulfillment_status, id DESC);

    -- One row per fulfillment effect of a confirmed order (e.g. delivery:1, email:receipt), written in the
    -- transaction of the effect itself: a retried or replayed step finds its row and does nothing again.
    CREATE TABLE manual_order_fulfilment_steps (
      manual_order_id text NOT NULL REFERENCES manual_orders(id),
      step text NOT NULL,
      result jsonb,
      done_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (manual_order_id, step)
    );

    ALTER TABLE deliveries ADD CONSTRAINT deliveries_manual_order_fk FOREIGN KEY (manual_order_id) REFERENCES manual_orders(id);
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    ALTER TABLE deliveries DROP CONSTRAINT deliveries_manual_order_fk;
    DROP TABLE manual_order_fulfilment_steps;
    DROP TABLE manual_orders;
    DROP TABLE manual_order_numbers;
  `);
}
