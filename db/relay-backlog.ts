import { QueryTypes, type Sequelize } from 'sequelize';

/** What waits in the two outboxes (docs/metrics.md): the events the outbox relay fans out, the starts the start relay makes. */
export interface RelayBacklogRow {
  outboxPending: number;
  outboxOldestSeconds: number;
  startsPending: number;
  startsOldestSeconds: number;
}

/**
 * One statement per scrape, on the partial indexes of the pending rows (events_unpublished, workflow_starts_pending):
 * normally they hold a handful of rows, and a plain read never waits for the relays' row locks.
 */
export async function readRelayBacklog(sequelize: Sequelize): Promise<RelayBacklogRow> {
  const [row] = await sequelize.query<RelayBacklogRow>(
    `SELECT (SELECT count(*) FROM events WHERE published_at IS NULL)::int AS "outboxPending",
            COALESCE(EXTRACT(EPOCH FROM now() - (SELECT min(created_at) FROM events WHERE published_at IS NULL)), 0)::float8 AS "outboxOldestSeconds",
            (SELECT count(*) FROM workflow_starts WHERE started_at IS NULL)::int AS "startsPending",
            COALESCE(EXTRACT(EPOCH FROM now() - (SELECT min(created_at) FROM workflow_starts WHERE started_at IS NULL)), 0)::float8 AS "startsOldestSeconds"`,
    { type: QueryTypes.SELECT },
  );
  return row!;
}
