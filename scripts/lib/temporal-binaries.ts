/**
 * Where the Temporal binaries used by tests and local dev (and npm start's Mailpit) come from. Mirrors scripts/provision.sh:
 *   1. TEMPORAL_CLI_PATH / TEMPORAL_TEST_SERVER_PATH, if set (must be an executable file);
 *   2. the provisioned cache dir, ${COMMERCE_TOOLS_DIR:-~/.cache/commerce-tools}/bin;
 *   3. otherwise the SDK's own download (needs internet), with a one-time warning.
 * `provisionTemporalBinaries` fills in step 2 on demand, so a first `npm start` or `npm test` needs no
 * extra command even when `npm install`'s postinstall could not build them.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EphemeralServerExecutable } from '@temporalio/testing';

export function toolsDir(): string {
  return process.env.COMMERCE_TOOLS_DIR || path.join(os.homedir(), '.cache', 'commerce-tools');
}

export function temporalCliExecutable(): EphemeralServerExecutable {
  return resolveExecutable('cli', 'Temporal CLI (dev server)');
}

export function testServerExecutable(): EphemeralServerExecutable {
  return resolveExecutable('test-server', 'Temporal time-skipping test server');
}

export type TemporalTool = 'cli' | 'test-server' | 'mailpit' | 'seaweedfs' | 'temporal-server';

const TOOLS: Record<TemporalTool, { envVar: string; binName: string }> = {
  cli: { envVar: 'TEMPORAL_CLI_PATH', binName: 'temporal' },
  'test-server': { envVar: 'TEMPORAL_TEST_SERVER_PATH', binName: 'temporal-test-server' },
  mailpit: { envVar: 'MAILPIT_PATH', binName: 'mailpit' },
  seaweedfs: { envVar: 'SEAWEEDFS_PATH', binName: 'weed' },
  'temporal-server': { envVar: 'TEMPORAL_SERVER_PATH', binName: 'temporal-server' },
};

/** Mailpit for npm start: MAILPIT_PATH, else the provisioned one; null when neither exists (it has no download fallback). */
export function mailpitExecutable(): string | null {
  return findExecutable('mailpit', 'Mailpit');
}

/** SeaweedFS (`weed`), the S3-compatible server of the S3 storage tests: SEAWEEDFS_PATH, else the provisioned one; null when neither exists. */
export function seaweedfsExecutable(): string | null {
  return findExecutable('seaweedfs', 'SeaweedFS');
}

export interface TemporalServerTools {
  /** The server (go.temporal.io/server's cmd/server). */
  server: string;
  /** temporal-sql-tool (its cmd/tools/sql), which creates the databases and applies the schema. */
  sqlTool: string;
  /** Holds postgresql/v12/temporal and postgresql/v12/visibility, the module's schema files. */
  schemaDir: string;
}

/**
 * The production Temporal server of the scale-out test, its SQL tool and schema: TEMPORAL_SERVER_PATH with
 * TEMPORAL_SQL_TOOL_PATH and TEMPORAL_SCHEMA_DIR, else the provisioned ones; null when the server is neither.
 */
export function temporalServerTools(): TemporalServerTools | null {
  const server = findExecutable('temporal-server', 'Temporal server');
  if (!server) return null;
  if (process.env.TEMPORAL_SERVER_PATH) {
    const { TEMPORAL_SQL_TOOL_PATH: sqlTool, TEMPORAL_SCHEMA_DIR: schemaDir } = process.env;
    if (!sqlTool || !isExecutableFile(sqlTool) || !schemaDir || !fs.existsSync(path.join(schemaDir, 'postgresql', 'v12'))) {
      throw new Error('TEMPORAL_SERVER_PATH needs TEMPORAL_SQL_TOOL_PATH (temporal-sql-tool) and TEMPORAL_SCHEMA_DIR (holding postgresql/v12) beside it.');
    }
    return { server, sqlTool, schemaDir };
  }
  return { server, sqlTool: path.join(toolsDir(), 'bin', 'temporal-sql-tool'), schemaDir: path.join(toolsDir(), 'temporal-server-schema') };
}

function isMissing(tool: TemporalTool): boolean {
  const { envVar, binName } = TOOLS[tool];
  return !process.env[envVar] && !isExecutableFile(path.join(toolsDir(), 'bin', binName));
}

/**
 * Runs scripts/provision.sh for the tools that are neither set nor cached (it prints one progress line
 * per tool it builds and waits for a concurrent run's lock). Rejects when the script fails, which outside
 * CI happens only for a broken override; a tool it cannot build is left to the SDK download fallback.
 */
export async function provisionTemporalBinaries(tools: TemporalTool[], reason: string): Promise<void> {
  const missing = tools.filter(isMissing);
  if (missing.length === 0) return;
  const script = path.resolve(__dirname, '..', 'provision.sh');
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn('bash', [script, ...missing], { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, PROVISION_REASON: reason } });
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) throw new Error(`scripts/provision.sh ${missing.join(' ')} failed (exit code ${code}); see its output above`);
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

/** The override if set (it must be executable), else the provisioned binary, else null. */
function findExecutable(tool: TemporalTool, description: string): string | null {
  const { envVar, binName } = TOOLS[tool];
  const fromEnv = process.env[envVar];
  if (fromEnv) {
    if (!isExecutableFile(fromEnv)) {
      throw new Error(`${envVar} is set to '${fromEnv}', which is not an executable file (${description}). Fix or unset ${envVar}.`);
    }
    return fromEnv;
  }
  const cached = path.join(toolsDir(), 'bin', binName);
  return isExecutableFile(cached) ? cached : null;
}

function resolveExecutable(tool: TemporalTool, description: string): EphemeralServerExecutable {
  const found = findExecutable(tool, description);
  if (found) return { type: 'existing-path', path: found };

  const { envVar, binName } = TOOLS[tool];
  const cached = path.join(toolsDir(), 'bin', binName);
  if (!warned.has(envVar)) {
    warned.add(envVar);
    console.warn(
      `[temporal-binaries] ${description} not found at ${cached} and ${envVar} is not set: ` +
        `falling back to the @temporalio/testing download, which needs internet access. ` +
        `Install Go (or set ${envVar}) and run \`npm run provision\` to avoid that.`,
    );
  }
  return { type: 'cached-download' };
}
