import { TestWorkflowEnvironment, type DevServerConfig, type LocalTestWorkflowEnvironmentOptions } from '@temporalio/testing';
import { temporalCliExecutable, testServerExecutable } from '../../scripts/lib/temporal-binaries';
import { SEARCH_ATTRIBUTES } from '../../workflows/messages';
import { testDataConverter } from './temporal-codec';

export type SearchAttributeKeys = NonNullable<DevServerConfig['searchAttributes']>;

/** The SDK gives a test server 5 s to come up; a JVM on a loaded 2-core machine can need more, so a start is retried. */
const SERVER_START_ATTEMPTS = 6;

/** Java time-skipping test server (no search attribute registration, no visibility queries); its client encrypts as the service's do. */
export async function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: testServerExecutable() }, client: { dataConverter: testDataConverter() } });
    } catch (err) {
      if (attempt >= SERVER_START_ATTEMPTS || !/did not start within/.test(String(err))) throw err;
    }
  }
}

/**
 * Temporal CLI dev server. Registers the project's custom search attributes (passed to the CLI as
 * `--search-attribute Name=Type`); `opts.server` can override anything, including `searchAttributes`.
 */
export function createDevServerEnv(
  opts: LocalTestWorkflowEnvironmentOptions & { searchAttributes?: SearchAttributeKeys } = {},
): Promise<TestWorkflowEnvironment> {
  const { searchAttributes = [...SEARCH_ATTRIBUTES], ...rest } = opts;
  return TestWorkflowEnvironment.createLocal({
    ...rest,
    server: { executable: temporalCliExecutable(), searchAttributes, ...rest.server },
  });
}
