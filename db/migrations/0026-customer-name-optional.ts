import type { QueryInterface } from 'sequelize';

// A customer's name is optional on create (document 2 requires only the e-mail, and only in local mode).
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query('ALTER TABLE customers ALTER COLUMN name DROP NOT NULL');
}

// Rows created without a name get their e-mail, or an empty name, so the constraint can come back.
export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    UPDATE customers SET name = coalesce(email, '') WHERE name IS NULL;
    ALTER TABLE customers ALTER COLUMN name SET NOT NULL;
  `);
}
