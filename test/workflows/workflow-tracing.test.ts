import { Resource } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Client, Connection } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { newId } from '../../lib/ids';
import { createWorker } from '../../worker/worker';
import type { fileCleanup } from '../../workflows/file-cleanup';
import { createTestContext, type TestContext } from '../helpers/context';
import { testDataConverter } from '../helpers/temporal-codec';
import { waitFor } from '../helpers/wait';
import { testActivityDeps } from '../helpers/worker';

/**
 * The bundled OpenTelemetry workflow interceptors run only for a run whose start carried a trace: a worker
 * exporting spans gets the run's and its activity's spans from a traced start, and none from a plain one.
 */
const TASK_QUEUE = `workflow-tracing-${Date.now()}`;
const exporter = new InMemorySpanExporter();

let ctx: TestContext;
let worker: Worker;
let running: Promise<void>;
let nativeConnection: NativeConnection;
let connection: Connection;

beforeAll(async () => {
  ctx = await createTestContext();
  nativeConnection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  worker = await createWorker({
    connection: nativeConnection,
    namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue: TASK_QUEUE,
    deps: testActivityDeps(ctx.sequelize),
    workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! },
    tracing: { enabled: true, spanProcessor: new SimpleSpanProcessor(exporter), resource: new Resource({ 'service.name': 'tracing-test' }), shutdown: async () => undefined },
  });
  running = worker.run();
  connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
});
afterAll(async () => {
  worker?.shutdown();
  await running;
  await nativeConnection?.close();
  await connection?.close();
  await ctx?.close();
});

/** A file cleanup of a file that never existed: one timer of no length and one activity that finds nothing to remove. */
async function runCleanup(client: Client): Promise<void> {
  const fileId = newId('file');
  await client.workflow.execute<typeof fileCleanup>('fileCleanup', {
    workflowId: `tracing-test:${fileId}`,
    taskQueue: TASK_QUEUE,
    args: [{ fileId, storageKey: `tracing-test/${fileId}`, delayMs: 0 }],
  });
}

/** The spans made inside the workflow sandbox (the run's and those of what it schedules), by name. */
const workflowSpans = () =>
  exporter
    .getFinishedSpans()
    .map((span) => span.name)
    .filter((name) => name.startsWith('RunWorkflow:') || name.startsWith('StartActivity:'));

describe('workflow tracing', () => {
  it('makes the spans of a run whose start carried a trace, and none for a run started without one', async () => {
    const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
    const plain = new Client({ connection, namespace, dataConverter: testDataConverter() });
    const traced = new Client({ connection, namespace, dataConverter: testDataConverter(), interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } });

    await runCleanup(plain);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(workflowSpans()).toEqual([]);

    await runCleanup(traced);
    await waitFor(async () => workflowSpans().length >= 2);
    expect(workflowSpans()).toEqual(expect.arrayContaining(['RunWorkflow:fileCleanup', 'StartActivity:removeDeletedFileBlob']));
  }, 60_000);
});
