import type { QueryInterface } from 'sequelize';

// API processes cache key lookups (domain/api-keys/cache.ts) and drop entries on these notifications. Triggers
// rather than application code, so every writer (API, CLI, direct SQL) is covered; NOTIFY is delivered on
// commit, so no process hears of a change that did not commit. Payloads: `key:<key_hash>`,
// `account:<account id>`, or `*` (drop everything). lastUsedAt writes change nothing cached and stay silent.
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE FUNCTION api_key_changes_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'TRUNCATE' THEN
        PERFORM pg_notify('api_key_changes', '*');
      ELSIF TG_TABLE_NAME = 'api_keys' THEN
        PERFORM pg_notify('api_key_changes', 'key:' || OLD.key_hash);
      ELSE
        PERFORM pg_notify('api_key_changes', 'account:' || OLD.id);
      END IF;
      RETURN NULL;
    END
    $$;
    CREATE TRIGGER api_keys_notify_update AFTER UPDATE ON api_keys FOR EACH ROW
      WHEN ((OLD.revoked_at, OLD.key_hash, OLD.account_id, OLD.environment, OLD.access)
            IS DISTINCT FROM (NEW.revoked_at, NEW.key_hash, NEW.account_id, NEW.environment, NEW.access))
      EXECUTE FUNCTION api_key_changes_notify();
    CREATE TRIGGER api_keys_notify_delete AFTER DELETE ON api_keys FOR EACH ROW EXECUTE FUNCTION api_key_changes_notify();
    CREATE TRIGGER api_keys_notify_truncate AFTER TRUNCATE ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION api_key_changes_notify();
    -- The columns of the workspace summary authentication returns (domain/auth-context.ts).
    CREATE TRIGGER accounts_notify_update AFTER UPDATE ON accounts FOR EACH ROW
      WHEN ((OLD.name, OLD.slug, OLD.plan, OLD.fulfillment_enabled, OLD.payment_enabled)
            IS DISTINCT FROM (NEW.name, NEW.slug, NEW.plan, NEW.fulfillment_enabled, NEW.payment_enabled))
      EXECUTE FUNCTION api_key_changes_notify();
    CREATE TRIGGER accounts_notify_delete AFTER DELETE ON accounts FOR EACH ROW EXECUTE FUNCTION api_key_changes_notify();
    CREATE TRIGGER accounts_notify_truncate AFTER TRUNCATE ON accounts FOR EACH STATEMENT EXECUTE FUNCTION api_key_changes_notify();
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP TRIGGER accounts_notify_truncate ON accounts;
    DROP TRIGGER accounts_notify_delete ON accounts;
    DROP TRIGGER accounts_notify_update ON accounts;
    DROP TRIGGER api_keys_notify_truncate ON api_keys;
    DROP TRIGGER api_keys_notify_delete ON api_keys;
    DROP TRIGGER api_keys_notify_update ON api_keys;
    DROP FUNCTION api_key_changes_notify();
  `);
}
