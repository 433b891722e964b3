import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const PROJECT_ROOT = path.resolve(__dirname, '..', '..');

export interface CompiledBuild {
  dist: string;
  /** The prebuilt workflow bundle its worker loads (WORKFLOW_BUNDLE_PATH). */
  bundle: string;
  /** The entry points, for startWorkerProcess's `script`. */
  api: string;
  worker: string;
  cleanup(): Promise<void>;
}

/**
 * The service as production runs it, `node dist/…`: the checkout's dist/ when `npm run build` made one (CI keeps
 * the production build check's, .ci/run); otherwise tsc compiles into a temporary directory (its node_modules a
 * link to the checkout's), reusing the workflow bundle globalSetup made from the same sources with the same options
 * (worker/workflow-bundle.ts), which is what `npm run build` would write.
 */
export async function compiledBuild(): Promise<CompiledBuild> {
  const entries = (dist: string, bundle: string, cleanup: () => Promise<void>): CompiledBuild => ({
    dist,
    bundle,
    api: path.join(dist, 'api', 'main.js'),
    worker: path.join(dist, 'worker', 'main.js'),
    cleanup,
  });
  const dist = path.join(PROJECT_ROOT, 'dist');
  if (existsSync(path.join(dist, 'api', 'main.js')) && existsSync(path.join(dist, 'workflow-bundle.js'))) {
    return entries(dist, path.join(dist, 'workflow-bundle.js'), async () => undefined);
  }
  const root = await mkdtemp(path.join(tmpdir(), 'compiled-build-'));
  await symlink(path.join(PROJECT_ROOT, 'node_modules'), path.join(root, 'node_modules'));
  await run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(PROJECT_ROOT, 'tsconfig.build.json'), '--outDir', path.join(root, 'dist')], {
    cwd: PROJECT_ROOT,
  });
  return entries(path.join(root, 'dist'), process.env.WORKFLOW_BUNDLE_PATH!, () => rm(root, { recursive: true, force: true }));
}
