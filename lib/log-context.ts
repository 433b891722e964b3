import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What every log line of one flow of work names, whichever module logs it: the API request's id, and in the worker
 * the workflow (and run) an activity works for, with the id of the request that started that workflow.
 */
export interface LogContext {
  requestId?: string;
  workflowId?: string;
  runId?: string;
  activityType?: string;
}

const storage = new AsyncLocalStorage<LogContext>();

/** Runs `fn` with `fields` added to the current flow's log context (they win over the outer ones). */
export function withLogContext<T>(fields: LogContext, fn: () => T): T {
  return storage.run({ ...storage.getStore(), ...fields }, fn);
}

/** The current flow's log context; empty outside any request or activity. */
export function currentLogContext(): LogContext {
  return storage.getStore() ?? {};
}
