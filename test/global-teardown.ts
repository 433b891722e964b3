import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { EmbeddedDatabase } from '../db/embedded-postgres';

export default async function globalTeardown(): Promise<void> {
  const shared = (globalThis as Record<string, unknown>).__COMMERCE_TEST__ as
    | { pg: EmbeddedDatabase; temporal: TestWorkflowEnvironment }
    | undefined;
  if (!shared) return;
  await shared.temporal.teardown();
  await shared.pg.stop();
}
