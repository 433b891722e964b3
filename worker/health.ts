import type { State } from '@temporalio/worker';
import { jsonAnswer, type ProbeRoute } from '../lib/probe-listener';

/**
 * /healthz: the process is up (answered from the moment it starts, before Temporal is reached).
 * /readyz: the Temporal worker is RUNNING, i.e. polling its task queue; starting, draining, stopped or failed is 503.
 */
export function workerHealthRoutes(workerState: () => State | undefined): Record<string, ProbeRoute> {
  return {
    '/healthz': () => jsonAnswer(200, { status: 'ok' }),
    '/readyz': () => {
      const state = workerState() ?? 'STARTING';
      return state === 'RUNNING' ? jsonAnswer(200, { status: 'ready', worker: state }) : jsonAnswer(503, { status: 'not_ready', worker: state });
    },
  };
}
