import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const PROJECT_ROOT = path.resolve(__dirname, '..', '..');
const TAIL_LINES = 60;

export interface WorkerProcess {
  pid: number;
  /** Last lines of its output, for failure messages. */
  output(): string;
  /** Every line it has written so far (stdout and stderr). */
  lines(): string[];
  /** Immediate death, as in a crash or an OOM kill: no drain, no cleanup. */
  kill(): Promise<void>;
  /** Graceful stop (SIGTERM), then SIGKILL after 15 s. */
  stop(): Promise<void>;
}

/**
 * `npm run worker` as its own process (`node --import tsx worker/main.ts`): Temporal worker plus the outbox
 * relay, exactly as deployed (or another `script` that logs `startedMessage`, e.g. `api/main.ts` with
 * "api listening"; `nodeArgs` go before the script, e.g. `--cpu-prof`). Resolves once it logs "worker started".
 * A compiled `script` (`.js`, e.g. an absolute path into a build's dist/) runs with plain node, as in production.
 * It inherits this process's environment (the database, Temporal address and encryption key from globalSetup)
 * unless `inheritEnv` is false (then only PATH and HOME); `env` adds the rest, NODE_EXTRA_CA_CERTS included
 * (Node reads it only at start-up).
 */
export async function startWorkerProcess(
  env: Record<string, string>,
  options: { script?: string; startedMessage?: string; timeoutMs?: number; nodeArgs?: string[]; inheritEnv?: boolean } = {},
): Promise<WorkerProcess> {
  const timeoutMs = options.timeoutMs ?? 90_000;
  const startedLine = `"msg":"${options.startedMessage ?? 'worker started'}"`;
  const entry = path.resolve(PROJECT_ROOT, options.script ?? 'worker/main.ts');
  const loader = entry.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const base = options.inheritEnv === false ? { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } : process.env;
  const child: ChildProcess = spawn(process.execPath, [...(options.nodeArgs ?? []), ...loader, entry], {
    cwd: PROJECT_ROOT,
    env: { ...base, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail: string[] = [];
  const all: string[] = [];
  let started = false;
  let exit: string | undefined;
  const onOutput = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
      tail.push(line);
      all.push(line);
      if (line.includes(startedLine)) started = true;
    }
    tail.splice(0, Math.max(0, tail.length - TAIL_LINES));
  };
  child.stdout?.on('data', onOutput);
  child.stderr?.on('data', onOutput);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = signal ? `signal ${signal}` : `code ${code}`;
      resolve();
    });
  });
  const output = () => tail.join('\n');

  const deadline = Date.now() + timeoutMs;
  while (!started) {
    if (exit) throw new Error(`worker exited with ${exit} before it started\n${output()}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`worker did not start within ${timeoutMs} ms\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  return {
    pid: child.pid!,
    output,
    lines: () => [...all],
    async kill() {
      if (!exit) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (exit) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
