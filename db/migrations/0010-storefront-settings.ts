import type { QueryInterface } from 'sequelize';

// Storefront settings are the workspace's (shared by test and live, like its branding): pixel ids, the
// manual-payment instructions of the manual checkout, and custom domains (unique across all workspaces).
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    ALTER TABLE accounts
      ADD COLUMN meta_pixel_id text,
      ADD COLUMN google_tag_id text,
      ADD COLUMN tiktok_pixel_id text,
      ADD COLUMN manual_bank_name text,
      ADD COLUMN manual_account_number text,
      ADD COLUMN manual_account_holder text,
      ADD COLUMN manual_payment_instructions text;

    CREATE TABLE custom_domains (
      hostname text PRIMARY KEY CHECK (hostname = lower(hostname)),
      account_id text NOT NULL REFERENCES accounts(id),
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX custom_domains_account ON custom_domains (account_id);
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP TABLE custom_domains;
    ALTER TABLE accounts
      DROP COLUMN meta_pixel_id, DROP COLUMN google_tag_id, DROP COLUMN tiktok_pixel_id,
      DROP COLUMN manual_bank_name, DROP COLUMN manual_account_number, DROP COLUMN manual_account_holder,
      DROP COLUMN manual_payment_instructions;
  `);
}
