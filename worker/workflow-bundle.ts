import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleWorkflowCode, type WorkerOptions } from '@temporalio/worker';
import { ConfigError, type Config } from '../lib/config';

/** Where `npm run build` writes the bundle: dist/workflow-bundle.js, beside the compiled dist/worker/. */
export const BUILT_BUNDLE_PATH = path.resolve(__dirname, '..', 'workflow-bundle.js');

/**
 * The one place the workflow bundle's options live, so the build, the tests and a worker run from source
 * bundle the same code the same way (workflows/index.ts, or dist/workflows/index.js once compiled). Workflow
 * interceptor modules and payload or failure converter paths belong here too: a worker given a bundle never
 * bundles, so it ignores its own `interceptors.workflowModules` and converter paths.
 */
export async function buildWorkflowBundle(): Promise<string> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../workflows'),
    workflowInterceptorModules: [require.resolve('../workflows/interceptors')],
    logger: undefined,
  });
  return code;
}

/**
 * The prebuilt bundle the worker loads: WORKFLOW_BUNDLE_PATH, else, for compiled code (`node dist/worker/main.js`),
 * the one the build wrote. Undefined only when running from TypeScript sources, which bundle at start.
 * A bundle that is not there stops the worker with a message rather than falling back to bundling at boot.
 */
export function prebuiltWorkflowBundle(config: Config, entryFile: string): WorkerOptions['workflowBundle'] {
  const configured = config.WORKFLOW_BUNDLE_PATH !== undefined;
  if (!configured && entryFile.endsWith('.ts')) return undefined;
  const codePath = path.resolve(config.WORKFLOW_BUNDLE_PATH ?? BUILT_BUNDLE_PATH);
  if (!existsSync(codePath)) {
    throw new ConfigError([
      configured
        ? `WORKFLOW_BUNDLE_PATH: ${codePath} does not exist (\`npm run build\` writes dist/workflow-bundle.js)`
        : `WORKFLOW_BUNDLE_PATH: unset, and the built bundle ${codePath} does not exist; run \`npm run build\``,
    ]);
  }
  return { codePath };
}

// `npm run build`: node dist/worker/workflow-bundle.js [output], after tsc.
if (require.main === module) {
  const output = path.resolve(process.argv[2] ?? BUILT_BUNDLE_PATH);
  buildWorkflowBundle()
    .then((code) => writeFile(output, code))
    .then(() => console.log(`workflow bundle written to ${path.relative(process.cwd(), output) || output}`))
    .catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    });
}
