import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROUND_TRIPS_REQUEST } from './round-trips';

export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');

/** How to run one server under test: a TypeScript entry point started as its own Node process. */
export interface ServerSpec {
  /** Path relative to the project root, e.g. `api/main.ts`. */
  script: string;
  env: Record<string, string>;
  /** GET path that answers 200 once the server can serve (database and, for the app, Temporal). */
  readyPath: string;
  /** Extra `node` flags, e.g. `['--cpu-prof', '--cpu-prof-dir=/tmp/prof']` when looking for where time goes. */
  nodeArgs?: string[];
}

export interface RunningServer {
  name: string;
  baseUrl: string;
  pid: number | undefined;
  /** Throws if the process has exited since it became ready. */
  assertAlive(): void;
  /** Statements its pg clients have sent and HTTP requests it has received so far (bench/lib/round-trips.ts). */
  roundTrips(): Promise<{ roundTrips: number; requests: number }>;
  stop(): Promise<void>;
}

const OUTPUT_TAIL_LINES = 40;

/**
 * Starts the server in a child process (`node --import tsx`, so no extra tsx wrapper process sits between
 * us and the signals), waits for its ready path, and keeps the last lines of its output for error messages.
 */
/**
 * BENCH_PROFILE_DIR=<dir>: the `node` flags that write a V8 CPU profile of a process the bench starts (servers and
 * workers; each thread its own file; open them in Chrome DevTools). None without it.
 */
export function profileArgs(): string[] {
  return process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
}

export async function startServer(name: string, spec: ServerSpec, port: number, timeoutMs = 60_000): Promise<RunningServer> {
  const profile = profileArgs();
  const counter = path.join(__dirname, 'round-trips.ts');
  const args = [...profile, ...(spec.nodeArgs ?? []), '--import', 'tsx', '--import', counter, path.join(PROJECT_ROOT, spec.script)];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...spec.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  // Our end of the channel must not keep the bench alive either.
  child.channel?.unref();
  const tail: string[] = [];
  const keep = (chunk: Buffer) => {
    tail.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    tail.splice(0, Math.max(0, tail.length - OUTPUT_TAIL_LINES));
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);

  let exit: string | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = signal ? `signal ${signal}` : `code ${code}`;
      resolve();
    });
  });
  const failure = (what: string) => new Error(`${name} server (${spec.script}) ${what}\n--- last output ---\n${tail.join('\n') || '(none)'}`);

  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exit) throw failure(`exited with ${exit} before it was ready`);
    try {
      const response = await fetch(`${baseUrl}${spec.readyPath}`, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw failure(`was not ready at ${spec.readyPath} within ${timeoutMs / 1000}s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  return {
    name,
    baseUrl,
    pid: child.pid,
    assertAlive() {
      if (exit) throw failure(`died during the run (${exit})`);
    },
    roundTrips() {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          child.off('message', onMessage);
          reject(failure('did not report its round trips within 5 s'));
        }, 5_000);
        const onMessage = (message: unknown) => {
          const counts = message as { roundTrips?: unknown; requests?: unknown } | null;
          if (typeof counts?.roundTrips !== 'number' || typeof counts.requests !== 'number') return;
          clearTimeout(timer);
          child.off('message', onMessage);
          resolve({ roundTrips: counts.roundTrips, requests: counts.requests });
        };
        child.on('message', onMessage);
        child.send(ROUND_TRIPS_REQUEST);
      });
    },
    async stop() {
      if (exit) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** CPU seconds (user + system) the process has used so far, from /proc; undefined where that is unavailable. */
export function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // Fields after the parenthesised command name: state is [0], utime [11], stime [12] (clock ticks).
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

const CLOCK_TICKS = 100; // USER_HZ, 100 on every mainstream Linux build
