import { readdirSync, readFileSync } from 'node:fs';
import { cpuSeconds } from './child-server';

/**
 * CPU seconds of the processes behind a multi-process measurement (the worker, the API, the Temporal dev server,
 * PostgreSQL's backends), read from /proc before and after a run, so a result says which process paid for it.
 * Linux only; elsewhere every figure is undefined.
 */
export type CpuGroups = Record<string, () => number[]>;

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

function pids(): number[] {
  try {
    return readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number);
  } catch {
    return [];
  }
}

/** The Temporal dev server listening on `port` (its command line names the port). */
export function temporalServerPids(port: string): number[] {
  return pids().filter((pid) => / server start-dev /.test(cmdline(pid)) && cmdline(pid).includes(`--port ${port} `));
}

/** The postmaster listening on `databaseUrlPort` (its command line names the port), and every backend it forked. */
export function postgresPids(databaseUrlPort: string): number[] {
  const all = pids();
  const postmaster = all.find((pid) => /postgres -D /.test(cmdline(pid)) && cmdline(pid).includes(`-p ${databaseUrlPort} `));
  if (postmaster === undefined) return [];
  return [postmaster, ...all.filter((pid) => parentOf(pid) === postmaster)];
}

/**
 * Snapshot of every group's CPU seconds. Processes that exit between two snapshots take their time with them, so
 * short-lived PostgreSQL backends are undercounted; the bench's pools keep theirs open.
 */
export function cpuSnapshot(groups: CpuGroups): Map<string, Map<number, number>> {
  const snapshot = new Map<string, Map<number, number>>();
  for (const [name, list] of Object.entries(groups)) {
    const byPid = new Map<number, number>();
    for (const pid of list()) {
      const seconds = cpuSeconds(pid);
      if (seconds !== undefined) byPid.set(pid, seconds);
    }
    snapshot.set(name, byPid);
  }
  return snapshot;
}

/** CPU seconds each group used between two snapshots (processes started in between count from zero). */
export function cpuBetween(before: Map<string, Map<number, number>>, after: Map<string, Map<number, number>>): Record<string, number> {
  const used: Record<string, number> = {};
  for (const [name, pidsAfter] of after) {
    let total = 0;
    for (const [pid, seconds] of pidsAfter) total += seconds - (before.get(name)?.get(pid) ?? 0);
    used[name] = total;
  }
  return used;
}
