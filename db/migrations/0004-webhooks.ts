import type { QueryInterface } from 'sequelize';

// Webhook endpoints, their delivery log, and the outbox wake-up: every insert into `events` notifies the
// relay (NOTIFY is delivered on commit, so a listener never sees an event that did not commit).
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE webhook_endpoints (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      url text NOT NULL CHECK (url ~ '^https://'),
      -- Empty means every event type.
      events text[] NOT NULL DEFAULT '{}',
      description text CHECK (char_length(description) <= 200),
      active boolean NOT NULL DEFAULT true,
      -- AES-256-GCM (lib/crypto-box) of the whsec_ signing secret: read back at every send.
      secret_sealed text NOT NULL,
      -- Set on the service's own endpoints (catalogue sync, product mirror); null for merchant endpoints.
      system_kind text CHECK (system_kind IN ('catalog_sync', 'product_mirror')),
      consecutive_failures integer NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
      -- Bumped whenever the endpoint is disabled: deliveries fanned out before that carry the old value and stop.
      delivery_epoch integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX webhook_endpoints_account_env_id ON webhook_endpoints (account_id, environment, id DESC);
    CREATE UNIQUE INDEX webhook_endpoints_system_kind ON webhook_endpoints (account_id, environment, system_kind)
      WHERE system_kind IS NOT NULL;

    CREATE TABLE webhook_delivery_attempts (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      endpoint_id text NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
      -- No foreign key: test events (evt_test_) are never written to the outbox.
      event_id text NOT NULL,
      event_type text NOT NULL,
      attempt integer NOT NULL CHECK (attempt >= 1),
      -- X-Service-Delivery-Id; unique so a repeated activity run records its attempt once.
      delivery_id uuid NOT NULL UNIQUE,
      url text NOT NULL,
      status text NOT NULL CHECK (status IN ('succeeded', 'retry_scheduled', 'failed')),
      status_code integer,
      duration_ms integer NOT NULL CHECK (duration_ms >= 0),
      error text,
      -- When the attempt started.
      scheduled_at timestamptz NOT NULL,
      next_attempt_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX webhook_delivery_attempts_endpoint_id ON webhook_delivery_attempts (endpoint_id, id DESC);
    CREATE INDEX webhook_delivery_attempts_event_id ON webhook_delivery_attempts (event_id);
    -- For the maintenance purge of the delivery log and of fanned-out events (db/retention.ts).
    CREATE INDEX webhook_delivery_attempts_created_at ON webhook_delivery_attempts (created_at);
    CREATE INDEX events_published_created_at ON events (created_at) WHERE published_at IS NOT NULL;

    CREATE FUNCTION events_notify_relay() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('events_outbox', '');
      RETURN NULL;
    END
    $$;
    CREATE TRIGGER events_notify_relay AFTER INSERT ON events FOR EACH STATEMENT EXECUTE FUNCTION events_notify_relay();
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP INDEX events_published_created_at;
    DROP TRIGGER events_notify_relay ON events;
    DROP FUNCTION events_notify_relay();
    DROP TABLE webhook_delivery_attempts;
    DROP TABLE webhook_endpoints;
  `);
}
