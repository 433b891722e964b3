/**
 * Where the Temporal binaries used by tests and local dev come from. Mirrors scripts/provision.sh:
 *   1. TEMPORAL_CLI_PATH / TEMPORAL_TEST_SERVER_PATH, if set (must be an executable file);
 *   2. the provisioned cache dir, ${COMMERCE_TOOLS_DIR:-~/.cache/commerce-tools}/bin;
 *   3. otherwise the SDK's own download (needs internet), with a one-time warning.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EphemeralServerExecutable } from '@temporalio/testing';

export function toolsDir(): string {
  return process.env.COMMERCE_TOOLS_DIR || path.join(os.homedir(), '.cache', 'commerce-tools');
}

export function temporalCliExecutable(): EphemeralServerExecutable {
  return resolveExecutable('TEMPORAL_CLI_PATH', 'temporal', 'Temporal CLI (dev server)');
}

export function testServerExecutable(): EphemeralServerExecutable {
  return resolveExecutable('TEMPORAL_TEST_SERVER_PATH', 'temporal-test-server', 'Temporal time-skipping test server');
}

function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const warned = new Set<string>();

function resolveExecutable(envVar: string, binName: string, description: string): EphemeralServerExecutable {
  const fromEnv = process.env[envVar];
  if (fromEnv) {
    if (!isExecutableFile(fromEnv)) {
      throw new Error(`${envVar} is set to '${fromEnv}', which is not an executable file (${description}). Fix or unset ${envVar}.`);
    }
    return { type: 'existing-path', path: fromEnv };
  }

  const cached = path.join(toolsDir(), 'bin', binName);
  if (isExecutableFile(cached)) {
    return { type: 'existing-path', path: cached };
  }

  if (!warned.has(envVar)) {
    warned.add(envVar);
    console.warn(
      `[temporal-binaries] ${description} not found at ${cached} and ${envVar} is not set: ` +
        `falling back to the @temporalio/testing download, which needs internet access. ` +
        `Run \`npm run provision\` (or set ${envVar}) to avoid that.`,
    );
  }
  return { type: 'cached-download' };
}
