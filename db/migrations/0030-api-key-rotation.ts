import type { QueryInterface } from 'sequelize';

// Key rotation (document 1, Authentication; docs/decisions/auth.md, "Rotation"): the rotated key keeps working until
// expires_at and names the key that replaced it. The change-notify trigger now also fires on expires_at, so an API
// process that cached the key drops it and reads the deadline (migration 0007 otherwise).
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    ALTER TABLE api_keys
      ADD COLUMN expires_at timestamptz,
      ADD COLUMN replaced_by_key_id text REFERENCES api_keys(id),
      ADD CONSTRAINT api_keys_rotation_pair CHECK ((expires_at IS NULL) = (replaced_by_key_id IS NULL));
    DROP TRIGGER api_keys_notify_update ON api_keys;
    CREATE TRIGGER api_keys_notify_update AFTER UPDATE ON api_keys FOR EACH ROW
      WHEN ((OLD.revoked_at, OLD.expires_at, OLD.key_hash, OLD.account_id, OLD.environment, OLD.access)
            IS DISTINCT FROM (NEW.revoked_at, NEW.expires_at, NEW.key_hash, NEW.account_id, NEW.environment, NEW.access))
      EXECUTE FUNCTION api_key_changes_notify();
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP TRIGGER api_keys_notify_update ON api_keys;
    CREATE TRIGGER api_keys_notify_update AFTER UPDATE ON api_keys FOR EACH ROW
      WHEN ((OLD.revoked_at, OLD.key_hash, OLD.account_id, OLD.environment, OLD.access)
            IS DISTINCT FROM (NEW.revoked_at, NEW.key_hash, NEW.account_id, NEW.environment, NEW.access))
      EXECUTE FUNCTION api_key_changes_notify();
    ALTER TABLE api_keys DROP CONSTRAINT api_keys_rotation_pair, DROP COLUMN replaced_by_key_id, DROP COLUMN expires_at;
  `);
}
