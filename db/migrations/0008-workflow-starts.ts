import { QueryTypes, type QueryInterface } from 'sequelize';
import { newId } from '../../lib/ids';

// The workflow-start outbox (db/workflow-starts.ts): a workflow that must start because a change committed is
// recorded in that change's transaction; the worker's start relay starts it once Temporal answers. Every
// insert notifies the relay (delivered on commit), as `events` does.
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE workflow_starts (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      -- A key of the dispatch map in domain/workflow-starters.ts; args is that workflow's input.
      workflow_type text NOT NULL,
      workflow_id text NOT NULL,
      args jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
      last_error text,
      -- Pushed back after a failed start, so a start that keeps failing does not hold up the others.
      next_attempt_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX workflow_starts_pending ON workflow_starts (next_attempt_at, id) WHERE started_at IS NULL;
    -- The API's after-commit attempt claims its own rows by workflow id.
    CREATE INDEX workflow_starts_pending_workflow_id ON workflow_starts (workflow_id) WHERE started_at IS NULL;
    -- For the maintenance purge of started rows (db/retention.ts).
    CREATE INDEX workflow_starts_started_at ON workflow_starts (started_at) WHERE started_at IS NOT NULL;

    CREATE FUNCTION workflow_starts_notify_relay() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('workflow_starts', '');
      RETURN NULL;
    END
    $$;
    CREATE TRIGGER workflow_starts_notify_relay AFTER INSERT ON workflow_starts
      FOR EACH STATEMENT EXECUTE FUNCTION workflow_starts_notify_relay();
  `);

  // Products left 'generating' by a start lost before this table existed: their ai-generation start is
  // recorded now. A workflow still running for one is only signalled to look again, which is harmless.
  const stuck = await qi.sequelize.query<{ id: string; account_id: string; environment: string }>(
    `SELECT id, account_id, environment FROM products WHERE ai_status = 'generating'`,
    { type: QueryTypes.SELECT },
  );
  for (const p of stuck) {
    await qi.sequelize.query(
      `INSERT INTO workflow_starts (id, account_id, environment, workflow_type, workflow_id, args)
       VALUES (:id, :accountId, :environment, 'aiGeneration', :workflowId, :args)`,
      {
        replacements: {
          id: newId('wfs'),
          accountId: p.account_id,
          environment: p.environment,
          workflowId: `ai-generation:${p.id}`,
          args: JSON.stringify({ accountId: p.account_id, environment: p.environment, productId: p.id }),
        },
      },
    );
  }
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP TRIGGER workflow_starts_notify_relay ON workflow_starts;
    DROP FUNCTION workflow_starts_notify_relay();
    DROP TABLE workflow_starts;
  `);
}
