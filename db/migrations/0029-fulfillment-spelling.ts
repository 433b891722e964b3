import type { QueryInterface } from 'sequelize';

// The two step ledgers take the spec's spelling (docs/decisions/vocabulary.md), with the primary keys and
// foreign keys PostgreSQL had named after them. A rename keeps the rows, so a step applied before it is still
// found applied after it. Applied migrations keep creating the old names; this one moves them on.
const RENAMES = [
  { from: 'checkout_fulfilment_steps', to: 'checkout_fulfillment_steps', fkey: 'checkout_session_id_fkey' },
  { from: 'manual_order_fulfilment_steps', to: 'manual_order_fulfillment_steps', fkey: 'manual_order_id_fkey' },
];

const rename = (from: string, to: string, fkey: string) => `
    ALTER TABLE ${from} RENAME TO ${to};
    ALTER TABLE ${to} RENAME CONSTRAINT ${from}_pkey TO ${to}_pkey;
    ALTER TABLE ${to} RENAME CONSTRAINT ${from}_${fkey} TO ${to}_${fkey};`;

export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(RENAMES.map((r) => rename(r.from, r.to, r.fkey)).join('\n'));
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(RENAMES.map((r) => rename(r.to, r.from, r.fkey)).join('\n'));
}
