/** The restart policy `npm start` applies to its children, with real child processes. */
import { spawn } from 'node:child_process';
import { runningChild, Supervisor, type SupervisorOptions } from '../../scripts/lib/supervisor';
import { waitFor } from '../helpers/wait';

function nodeChild(code: string) {
  return runningChild(spawn(process.execPath, ['-e', code], { stdio: 'ignore' }), 2_000);
}

/** A shell child: it starts in milliseconds even on a loaded machine, where Node's own start-up can take a second. */
function shellChild(script: string) {
  return runningChild(spawn('/bin/sh', ['-c', script], { stdio: 'ignore' }), 2_000);
}

function supervised(overrides: Partial<SupervisorOptions> & Pick<SupervisorOptions, 'start'>) {
  const lines: string[] = [];
  const supervisor = new Supervisor({ name: 'worker', log: (line) => lines.push(line), initialDelayMs: 50, maxDelayMs: 200, graceMs: 10, ...overrides });
  return { supervisor, lines };
}

describe('Supervisor', () => {
  it('restarts a crashing child with exponential backoff, capped, and says so', async () => {
    let starts = 0;
    const { supervisor, lines } = supervised({
      start: async () => {
        starts += 1;
        return nodeChild('process.exit(3)');
      },
    });
    await supervisor.start();
    await waitFor(async () => starts >= 5, { timeoutMs: 10_000 });
    await supervisor.stop();
    expect(lines.slice(0, 4)).toEqual([
      'worker exited with code 3; restarting in 50ms (attempt 1)',
      'worker restarted',
      'worker exited with code 3; restarting in 100ms (attempt 2)',
      'worker restarted',
    ]);
    expect(lines).toContain('worker exited with code 3; restarting in 200ms (attempt 3)');
    expect(lines).toContain('worker exited with code 3; restarting in 200ms (attempt 4)');
  });

  it('resets the backoff after a run that stayed up long enough', async () => {
    let starts = 0;
    const { supervisor, lines } = supervised({
      resetAfterMs: 1_000,
      // The first two runs crash at once, the third stays up past resetAfterMs before crashing, the fourth stays.
      start: async () => {
        starts += 1;
        if (starts === 3) return shellChild('sleep 2; exit 1');
        return shellChild(starts === 4 ? 'sleep 30' : 'exit 1');
      },
    });
    await supervisor.start();
    await waitFor(async () => starts >= 4, { timeoutMs: 10_000 });
    await supervisor.stop();
    expect(lines.filter((line) => line.includes('restarting')).map((line) => line.replace(/.*\(/, '('))).toEqual(['(attempt 1)', '(attempt 2)', '(attempt 1)']);
  });

  it('reports a signal death and keeps trying when a restart itself fails', async () => {
    let starts = 0;
    const { supervisor, lines } = supervised({
      name: 'PostgreSQL',
      start: async () => {
        starts += 1;
        if (starts === 2) throw new Error('port 5433 is busy');
        return nodeChild(starts === 1 ? 'process.kill(process.pid, "SIGKILL")' : 'setInterval(() => {}, 1000)');
      },
    });
    await supervisor.start();
    await waitFor(async () => starts >= 3, { timeoutMs: 10_000 });
    await supervisor.stop();
    expect(lines).toEqual([
      'PostgreSQL was killed by SIGKILL; restarting in 50ms (attempt 1)',
      'PostgreSQL could not be restarted (port 5433 is busy); restarting in 100ms (attempt 2)',
      'PostgreSQL restarted',
    ]);
  });

  it('does not restart what it was asked to stop, nor a child that exits during the grace period of a stop', async () => {
    const pids: number[] = [];
    const { supervisor, lines } = supervised({
      graceMs: 500,
      start: async () => {
        const child = spawn(process.execPath, ['-e', 'process.on("SIGTERM", () => process.exit(0)); setInterval(() => {}, 1000)'], { stdio: 'ignore' });
        pids.push(child.pid ?? -1);
        return runningChild(child, 2_000);
      },
    });
    await supervisor.start();
    process.kill(pids[0] ?? -1, 'SIGINT'); // as a terminal's Ctrl-C would, just before the stop request
    await supervisor.stop();
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(pids).toHaveLength(1);
    expect(lines).toEqual([]);
  });

  it('stops a child that ignores SIGTERM with SIGKILL after the timeout', async () => {
    const child = spawn(process.execPath, ['-e', 'process.on("SIGTERM", () => {}); console.log("ready"); setInterval(() => {}, 1000)'], { stdio: ['ignore', 'pipe', 'ignore'] });
    // Only once its handler is installed does the child ignore SIGTERM (Node's start-up can take a second under load).
    await new Promise((resolve) => child.stdout.once('data', resolve));
    const running = runningChild(child, 200);
    await running.stop();
    await expect(running.exited).resolves.toEqual({ code: null, signal: 'SIGKILL' });
  });
});
