import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { LEGACY_ACTIVITY_TYPES } from '../../workflows/legacy-activity-types';
import { localActivityTypes } from '../helpers/history';
import { testDataConverter } from '../helpers/temporal-codec';

const HISTORIES = path.join(__dirname, 'histories');

interface Recorded {
  workflowId: string;
  history: temporal.api.history.v1.History;
}

async function recordedHistories(): Promise<Recorded[]> {
  const files = (await readdir(HISTORIES)).filter((f) => f.endsWith('.json'));
  return Promise.all(
    files.map(async (file) => ({
      workflowId: file.replace(/\.json$/, ''),
      // Decoded here rather than by the SDK's JSON loader, which trips over npm's two nested protobufjs copies.
      history: temporal.api.history.v1.History.fromObject(JSON.parse(await readFile(path.join(HISTORIES, file), 'utf8'))),
    })),
  );
}

/** Each history's replay error, if any, by workflow id. */
async function replay(histories: Recorded[]): Promise<{ workflowId: string; error: string | undefined }[]> {
  const results = [];
  for await (const result of Worker.runReplayHistories({ workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! }, dataConverter: testDataConverter() }, histories)) {
    results.push({ workflowId: result.workflowId, error: result.error?.message });
  }
  return results;
}

/** The activity types a history scheduled: ordinary activities, and local ones (recorded as markers). */
function activityTypes(history: temporal.api.history.v1.History): string[] {
  const events = history.events ?? [];
  return [...events.flatMap((event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? []), ...localActivityTypes(events)];
}

/**
 * Replays recorded histories through today's workflow code: a change that would break running workflows
 * (nondeterminism) fails here. Record new ones with RECORD_HISTORIES=1 npm test (they are written decrypted,
 * test/helpers/temporal-codec.ts). The worker has the service's codec, as in production: the histories recorded
 * before it (plain payloads) are the runs it must still finish. Encrypted histories: test/e2e/encrypted-histories.test.ts.
 */
describe('workflow replay', () => {
  it('replays every recorded history without nondeterminism', async () => {
    const histories = await recordedHistories();
    expect(histories.length).toBeGreaterThan(0);
    const results = await replay(histories);
    for (const result of results) expect(result).toEqual({ workflowId: result.workflowId, error: undefined });
    expect(results).toHaveLength(histories.length);
  });

  it('replays runs that scheduled the legacy activity types, beside runs recorded under the spec spelling (docs/decisions/vocabulary.md)', async () => {
    const legacy = new Set<string>(Object.values(LEGACY_ACTIVITY_TYPES));
    const renamed = new Set<string>(Object.keys(LEGACY_ACTIVITY_TYPES));
    const histories = await recordedHistories();
    const old = histories.filter((h) => activityTypes(h.history).some((type) => legacy.has(type)));
    const current = histories.filter((h) => activityTypes(h.history).some((type) => renamed.has(type)));
    // Checkout, as ordinary and as local activities, and the manual order, each recorded under both spellings.
    expect(old.map((h) => h.workflowId).sort()).toEqual([
      'checkout-session-fulfilled-activity-steps',
      'checkout-session-fulfilled-legacy-activity-types',
      'checkout-session-step-fallback-legacy-activity-types',
      'manual-order-retried-legacy-activity-types',
    ]);
    expect(current.map((h) => h.workflowId).sort()).toEqual([
      'checkout-session-fulfilled',
      'checkout-session-receipt-handed-off',
      'checkout-session-receipt-sent',
      'checkout-session-step-fallback',
      'manual-order-retried',
    ]);
    // No history mixes the two: a run keeps the spelling it began its fulfillment with.
    expect(old.filter((h) => current.includes(h))).toEqual([]);
    expect(await replay(old)).toEqual(old.map((h) => ({ workflowId: h.workflowId, error: undefined })));
  });
});
