import { spawn } from 'node:child_process';
import path from 'node:path';
import type { Sequelize } from 'sequelize';
import { main } from '../../scripts/cli';
import { tsxNodeArgs } from '../../scripts/lib/local-stack';

const ROOT = path.resolve(__dirname, '../..');
const CLI = path.join(ROOT, 'scripts/cli.ts');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliRunOptions {
  env?: NodeJS.ProcessEnv;
  /** Piped in (and closed) as a shell pipe would; nothing by default. */
  stdin?: string;
}

/**
 * The real CLI in a Node process of its own, through tsx, as `npm run cli` runs it: for what only a process shows
 * (how it finds its database, exit codes, a piped standard input). Seconds per run on a loaded machine.
 */
export function spawnCli(args: string[], { env = process.env, stdin = '' }: CliRunOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...tsxNodeArgs(CLI), ...args], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

/**
 * The CLI's `main` in this process, on the test's open database: what a command does and prints, without starting
 * Node for every run. Standard input is handed over as the process entry reads it (one trailing line break off).
 */
export async function runCli(sequelize: Sequelize, args: string[], { env = process.env, stdin = '' }: CliRunOptions = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const piped = stdin.replace(/\r?\n$/, '');
  const code = await main(args, {
    env,
    sequelize,
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    stdinText: () => Promise.resolve(piped === '' ? undefined : piped),
  });
  return { code, stdout, stderr };
}

/** The one JSON value a successful command prints, and nothing else. */
export function singleJson<T = Record<string, unknown>>(result: CliResult): T {
  if (result.code !== 0) throw new Error(`CLI exited ${result.code}: ${result.stderr}`);
  const lines = result.stdout.split('\n').filter((l) => l !== '');
  if (lines.length !== 1) throw new Error(`expected one line of JSON on stdout, got ${lines.length}: ${result.stdout}`);
  return JSON.parse(lines[0] as string) as T;
}
