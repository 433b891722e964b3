import { TestWorkflowEnvironment, type DevServerConfig, type LocalTestWorkflowEnvironmentOptions } from '@temporalio/testing';
import { temporalCliExecutable, testServerExecutable } from '../../scripts/lib/temporal-binaries';
import { ACCOUNT_ID } from '../../workflows/messages';

export type SearchAttributeKeys = NonNullable<DevServerConfig['searchAttributes']>;

/** Java time-skipping test server (no search attribute registration, no visibility queries). */
export function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  return TestWorkflowEnvironment.createTimeSkipping({ server: { executable: testServerExecutable() } });
}

/**
 * Temporal CLI dev server. Registers the project's custom search attributes (passed to the CLI as
 * `--search-attribute Name=Type`); `opts.server` can override anything, including `searchAttributes`.
 */
export function createDevServerEnv(
  opts: LocalTestWorkflowEnvironmentOptions & { searchAttributes?: SearchAttributeKeys } = {},
): Promise<TestWorkflowEnvironment> {
  const { searchAttributes = [ACCOUNT_ID], ...rest } = opts;
  return TestWorkflowEnvironment.createLocal({
    ...rest,
    server: { executable: temporalCliExecutable(), searchAttributes, ...rest.server },
  });
}
