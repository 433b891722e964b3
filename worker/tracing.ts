import { tracingSettings } from '../lib/config';
import { startTracing } from '../lib/tracing-setup';

/** The worker's tracing, started on import: worker/main.ts imports this first, before http and pg load. */
export const tracing = startTracing(tracingSettings(), 'commerce-worker');
