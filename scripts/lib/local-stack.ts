/**
 * What `npm start` (scripts/start.ts) and the CLI (scripts/cli.ts) share about the local stack:
 * the state file `npm start` writes into DATA_DIR so that the CLI finds the embedded database without
 * DATABASE_URL, and how to run a TypeScript entry point as a child Node process.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError, type Config } from '../../lib/config';

export const STACK_FILE = 'stack.json';

/** Written by `npm start` once PostgreSQL and Temporal are up; removed when it stops. */
export interface StackState {
  /** The `npm start` process (scripts/start.ts) that owns the stack. */
  pid: number;
  databaseUrl: string;
  temporalAddress: string;
  temporalNamespace: string;
  apiBaseUrl: string;
  temporalUiUrl: string | null;
  startedAt: string;
}

export function stackFilePath(dataDir: string): string {
  return path.join(path.resolve(dataDir), STACK_FILE);
}

/** The state of the stack started from this DATA_DIR, or null when no state file exists. */
export function readStackState(dataDir: string): StackState | null {
  const file = stackFilePath(dataDir);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const parsed = JSON.parse(text) as Partial<StackState>;
  if (typeof parsed.databaseUrl !== 'string' || typeof parsed.pid !== 'number') {
    throw new ConfigError([`${file}: not a stack state file written by \`npm start\` (delete it and run \`npm start\` again)`]);
  }
  return parsed as StackState;
}

/** Written atomically with mode 0600: it holds the database URL, password included. */
export function writeStackState(dataDir: string, state: StackState): void {
  const file = stackFilePath(dataDir);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
}

/** Removes the state file if it still belongs to `pid` (a newer stack may have replaced it). */
export function removeStackState(dataDir: string, pid: number): void {
  try {
    if (readStackState(dataDir)?.pid === pid) fs.unlinkSync(stackFilePath(dataDir));
  } catch {
    // best effort: a stale file is detected by its dead pid
  }
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The database the CLI should use: DATABASE_URL when set, otherwise the embedded one of a running
 * `npm start` with the same DATA_DIR. Throws ConfigError saying what to do when there is neither.
 */
export function resolveLocalDatabaseUrl(config: Config): string {
  if (config.DATABASE_URL) return config.DATABASE_URL;
  const file = stackFilePath(config.DATA_DIR);
  const state = readStackState(config.DATA_DIR);
  if (!state) {
    throw new ConfigError([
      `DATABASE_URL: not set, and no running \`npm start\` was found (${file} does not exist). ` +
        'Set DATABASE_URL=postgres://user:password@host:5432/db, or run `npm start` first (with the same DATA_DIR).',
    ]);
  }
  if (!isProcessAlive(state.pid)) {
    throw new ConfigError([
      `DATABASE_URL: not set, and the \`npm start\` recorded in ${file} (pid ${state.pid}) is no longer running. ` +
        'Run `npm start` again, or set DATABASE_URL.',
    ]);
  }
  return state.databaseUrl;
}

/**
 * ENCRYPTION_KEY for the CLI: the environment's, else that of the running `npm start` of this DATA_DIR (the key it
 * generated into $DATA_DIR/encryption.key), so that what the CLI seals or sends to Temporal the stack can open.
 */
export function localEncryptionKey(config: Config): string | undefined {
  if (config.ENCRYPTION_KEY || config.DATABASE_URL) return undefined;
  const state = readStackState(config.DATA_DIR);
  if (!state || !isProcessAlive(state.pid)) return undefined;
  try {
    return fs.readFileSync(path.join(path.resolve(config.DATA_DIR), 'encryption.key'), 'utf8').trim();
  } catch {
    return undefined;
  }
}

/**
 * Node arguments that run a TypeScript entry point in one process through tsx's loader
 * (`node --import tsx file.ts`), so signals reach the program itself rather than a wrapper.
 */
export function tsxNodeArgs(entry: string): string[] {
  return ['--import', pathToFileURL(require.resolve('tsx')).href, entry];
}
