import type { QueryInterface } from 'sequelize';

// Local-mode instructions per payment method (docs/decisions/hosted-checkout.md, "Methods in local mode"): the
// bank transfer keeps the 0010 columns; QRIS gets a static code image and text, the wallets text.
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    ALTER TABLE accounts
      ADD COLUMN manual_qris_image_url text,
      ADD COLUMN manual_qris_instructions text,
      ADD COLUMN manual_ewallet_instructions text,
      ADD COLUMN manual_intl_wallet_instructions text
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    ALTER TABLE accounts
      DROP COLUMN manual_qris_image_url, DROP COLUMN manual_qris_instructions,
      DROP COLUMN manual_ewallet_instructions, DROP COLUMN manual_intl_wallet_instructions
  `);
}
