import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { testDataConverter } from '../helpers/temporal-codec';

const HISTORIES = path.join(__dirname, 'histories');

/**
 * Replays recorded histories through today's workflow code: a change that would break running workflows
 * (nondeterminism) fails here. Record new ones with RECORD_HISTORIES=1 npm test (they are written decrypted,
 * test/helpers/temporal-codec.ts). The worker has the service's codec, as in production: the histories recorded
 * before it (plain payloads) are the runs it must still finish. Encrypted histories: test/e2e/encrypted-histories.test.ts.
 */
describe('workflow replay', () => {
  it('replays every recorded history without nondeterminism', async () => {
    const files = (await readdir(HISTORIES)).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThan(0);
    const histories = await Promise.all(
      files.map(async (file) => ({
        workflowId: file.replace(/\.json$/, ''),
        // Decoded here rather than by the SDK's JSON loader, which trips over npm's two nested protobufjs copies.
        history: temporal.api.history.v1.History.fromObject(JSON.parse(await readFile(path.join(HISTORIES, file), 'utf8'))),
      })),
    );
    const results = Worker.runReplayHistories({ workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! }, dataConverter: testDataConverter() }, histories);
    let count = 0;
    for await (const result of results) {
      expect({ workflowId: result.workflowId, error: result.error?.message }).toEqual({ workflowId: result.workflowId, error: undefined });
      count += 1;
    }
    expect(count).toBe(files.length);
  });
});
