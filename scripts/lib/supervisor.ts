/**
 * Keeps one process of the local stack running (`npm start`): when it dies on its own it is started again
 * after an exponential backoff (1s, 2s, 4s … capped), said so on the console; a run that stayed up long
 * enough resets the backoff. Used for the API and the worker as for PostgreSQL and the Temporal dev server.
 */
import type { ChildProcess } from 'node:child_process';

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** One running instance: how to know it ended and how to end it. */
export interface Running {
  readonly exited: Promise<ExitStatus>;
  stop(): Promise<void>;
}

export interface SupervisorOptions<R extends Running = Running> {
  /** How the console names it, e.g. `worker` or `PostgreSQL`. */
  name: string;
  /** Starts an instance; resolves once it is up. */
  start(): Promise<R>;
  log(message: string): void;
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** A run at least this long resets the backoff. */
  resetAfterMs?: number;
  /**
   * How long an exit waits before it counts as a crash: a terminal's Ctrl-C reaches the children a moment
   * before the stop request it causes, and that exit is no crash.
   */
  graceMs?: number;
}

/** A child process as a Running: stopped with SIGTERM, then SIGKILL if it does not exit in time. */
export function runningChild(child: ChildProcess, stopTimeoutMs = 15_000, onKill?: () => void): Running {
  const exited = new Promise<ExitStatus>((resolve) => {
    // 'close' rather than 'exit': it comes after the last line of the child's output has been read.
    child.once('close', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: null, signal: null }));
  });
  return {
    exited,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return void (await exited);
      child.kill('SIGTERM');
      const timer = setTimeout(() => {
        onKill?.();
        child.kill('SIGKILL');
      }, stopTimeoutMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

export function describeExit({ code, signal }: ExitStatus): string {
  if (signal) return `was killed by ${signal}`;
  return code === null ? 'could not be started' : `exited with code ${code}`;
}

export class Supervisor<R extends Running = Running> {
  private current: R | undefined;
  private alive = false;
  private stopping = false;
  private attempt = 0;
  private cancelWait: (() => void) | undefined;
  private loop: Promise<void> = Promise.resolve();
  private readonly initialDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly resetAfterMs: number;
  private readonly graceMs: number;

  constructor(private readonly options: SupervisorOptions<R>) {
    this.initialDelayMs = options.initialDelayMs ?? 1_000;
    this.maxDelayMs = options.maxDelayMs ?? 30_000;
    this.resetAfterMs = options.resetAfterMs ?? 60_000;
    this.graceMs = options.graceMs ?? 300;
  }

  /** Starts the first instance (its failure is the caller's), then keeps one running until stop(). */
  async start(): Promise<R> {
    const first = await this.options.start();
    this.current = first;
    this.alive = true;
    this.loop = this.watch(first, Date.now());
    return first;
  }

  /** Whether the supervised process runs now (false from its exit until a restart). */
  get running(): boolean {
    return this.alive;
  }

  /** Number of restarts tried so far in the current backoff series. */
  get attempts(): number {
    return this.attempt;
  }

  /**
   * No more restarts from now on; the running instance is left alone. For a stack shutting down in order:
   * a signal that reached every process at once must not get the last-stopped ones restarted meanwhile.
   */
  stopRestarting(): void {
    this.stopping = true;
    this.cancelWait?.();
  }

  async stop(): Promise<void> {
    this.stopRestarting();
    await this.current?.stop();
    await this.loop;
  }

  private async watch(running: R, startedAt: number): Promise<void> {
    const status = await running.exited;
    this.alive = false;
    if (!(await this.wait(this.graceMs))) return;
    if (Date.now() - startedAt >= this.resetAfterMs) this.attempt = 0;
    let reason = describeExit(status);
    for (;;) {
      this.attempt += 1;
      const delayMs = Math.min(this.initialDelayMs * 2 ** (this.attempt - 1), this.maxDelayMs);
      this.options.log(`${this.options.name} ${reason}; restarting in ${formatDelay(delayMs)} (attempt ${this.attempt})`);
      if (!(await this.wait(delayMs))) return;
      try {
        const next = await this.options.start();
        if (this.stopping) {
          await next.stop();
          return;
        }
        this.current = next;
        this.alive = true;
        this.options.log(`${this.options.name} restarted`);
        return this.watch(next, Date.now());
      } catch (err) {
        if (this.stopping) return;
        reason = `could not be restarted (${(err as Error).message})`;
      }
    }
  }

  /** Sleeps unless stopping; false when stop() was called before or during the wait. */
  private wait(ms: number): Promise<boolean> {
    if (this.stopping) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.cancelWait = undefined;
        resolve(!this.stopping);
      }, ms);
      this.cancelWait = () => {
        clearTimeout(timer);
        resolve(false);
      };
    });
  }
}

function formatDelay(ms: number): string {
  return ms % 1_000 === 0 ? `${ms / 1_000}s` : `${ms}ms`;
}
