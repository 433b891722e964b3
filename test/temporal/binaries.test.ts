/**
 * Proves the provisioned Temporal binaries (scripts/provision.sh) actually start and serve:
 * the Java time-skipping test server and the Temporal CLI dev server with our search attributes.
 */
import { SearchAttributeType } from '@temporalio/common';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createDevServerEnv, createTimeSkippingEnv } from '../helpers/temporal-env';

const STARTUP_TIMEOUT_MS = 60_000;

describe('Temporal time-skipping test server', () => {
  let env: TestWorkflowEnvironment | undefined;

  beforeAll(async () => {
    env = await createTimeSkippingEnv();
  }, STARTUP_TIMEOUT_MS);

  afterAll(async () => {
    await env?.teardown();
  });

  it('answers workflow and test service calls', async () => {
    const info = await env!.connection.workflowService.getSystemInfo({});
    expect(info.capabilities).toBeDefined();
    expect(env!.supportsTimeSkipping).toBe(true);
    const before = await env!.currentTimeMs();
    await env!.sleep('1 day');
    expect((await env!.currentTimeMs()) - before).toBeGreaterThanOrEqual(24 * 60 * 60 * 1000);
  });
});

describe('Temporal CLI dev server', () => {
  let env: TestWorkflowEnvironment | undefined;

  beforeAll(async () => {
    env = await createDevServerEnv();
  }, STARTUP_TIMEOUT_MS);

  afterAll(async () => {
    await env?.teardown();
  });

  it('answers workflow service calls', async () => {
    const info = await env!.connection.workflowService.getSystemInfo({});
    expect(info.serverVersion).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('has the AccountId and LifecycleState keyword search attributes registered', async () => {
    const { customAttributes } = await env!.connection.operatorService.listSearchAttributes({ namespace: 'default' });
    expect(customAttributes?.AccountId).toBe(encodeSearchAttributeIndexedValueType(SearchAttributeType.KEYWORD));
    expect(customAttributes?.LifecycleState).toBe(encodeSearchAttributeIndexedValueType(SearchAttributeType.KEYWORD));
  });
});
