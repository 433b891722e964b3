import type { QueryInterface } from 'sequelize';

// Tracing (docs/tracing.md): an outbox row keeps where it was recorded, the W3C trace context and the request id
// (lib/tracing.ts, captureOrigin), so the workflow a relay starts from it later joins that trace and names that
// request. NULL when tracing is off and no request recorded it.
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    ALTER TABLE events ADD COLUMN trace_context jsonb;
    ALTER TABLE workflow_starts ADD COLUMN trace_context jsonb;
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    ALTER TABLE workflow_starts DROP COLUMN trace_context;
    ALTER TABLE events DROP COLUMN trace_context;
  `);
}
