import type { QueryInterface } from 'sequelize';

// Shipping (docs/decisions/shipping.md): each workspace environment's ship-from origin, the shipments checkout
// completion creates, the partner's status events applied to them (each once), and the signatures of the
// partner's webhook deliveries (each accepted once).
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE shipping_origins (
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      address text NOT NULL,
      contact_name text NOT NULL,
      contact_phone text NOT NULL,
      province text,
      city text,
      district text,
      village text,
      postal text,
      area_id text,
      lat double precision CHECK (lat BETWEEN -90 AND 90),
      lng double precision CHECK (lng BETWEEN -180 AND 180),
      note text,
      -- Courier codes the workspace ships with; empty means every courier of the partner.
      couriers jsonb NOT NULL DEFAULT '[]',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (account_id, environment),
      CHECK ((lat IS NULL) = (lng IS NULL))
    );

    CREATE TABLE shipments (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      status text NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'confirmed', 'picked_up', 'in_transit', 'delivered', 'cancelled', 'returned')),
      courier_code text NOT NULL,
      courier_service_code text NOT NULL,
      insurance boolean NOT NULL DEFAULT false,
      -- Set by the booking: which partner holds the order, its id there, the courier's waybill and tracking page.
      partner text CHECK (partner IN ('local', 'biteship')),
      partner_order_id text,
      waybill_id text,
      tracking_url text,
      price bigint CHECK (price >= 0),
      currency text NOT NULL DEFAULT 'IDR',
      -- Snapshots: the origin as it was when the shipment was created (null: none was set yet) and the buyer's address.
      origin jsonb,
      destination jsonb NOT NULL,
      items jsonb NOT NULL,
      external_source text NOT NULL,
      external_ref text NOT NULL,
      checkout_session_id text REFERENCES checkout_sessions(id),
      line_key text,
      -- The rendered label's blob; labels are made after the waybill is known.
      label_key text,
      label_created_at timestamptz,
      cancellation_reason text,
      cancelled_at timestamptz,
      booked_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((partner IS NULL) = (booked_at IS NULL)),
      CHECK ((partner_order_id IS NULL) = (booked_at IS NULL)),
      CHECK (label_key IS NULL OR waybill_id IS NOT NULL),
      CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL))
    );
    -- One shipment per line of a checkout session, also under retried fulfillment steps.
    CREATE UNIQUE INDEX shipments_session_line ON shipments (checkout_session_id, line_key) WHERE checkout_session_id IS NOT NULL;
    -- The partner's webhooks name its order: one shipment per order id, whichever partner (their ids never meet).
    CREATE UNIQUE INDEX shipments_partner_order ON shipments (partner_order_id) WHERE partner_order_id IS NOT NULL;
    CREATE INDEX shipments_list ON shipments (account_id, environment, id DESC);
    CREATE INDEX shipments_status ON shipments (account_id, environment, status, id DESC);

    -- Every partner event seen, by the partner's event id: applied or ignored, each exactly once.
    CREATE TABLE shipment_events (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      shipment_id text NOT NULL REFERENCES shipments(id),
      source text NOT NULL CHECK (source IN ('webhook', 'booking', 'local_partner')),
      type text NOT NULL,
      partner_status text,
      status text,
      outcome text NOT NULL CHECK (outcome IN ('applied', 'ignored')),
      received_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX shipment_events_shipment ON shipment_events (shipment_id, received_at);

    -- Each signed webhook delivery is accepted once: the same signature again is a replay.
    CREATE TABLE shipping_webhook_receipts (
      signature text PRIMARY KEY,
      event_id text NOT NULL,
      signed_at timestamptz NOT NULL,
      received_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX shipping_webhook_receipts_received ON shipping_webhook_receipts (received_at);
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP TABLE shipping_webhook_receipts;
    DROP TABLE shipment_events;
    DROP TABLE shipments;
    DROP TABLE shipping_origins;
  `);
}
