import { tracingSettings } from '../lib/config';
import { startTracing } from '../lib/tracing-setup';

/** The API's tracing, started on import: api/main.ts imports this first, before http, Express and pg load. */
export const tracing = startTracing(tracingSettings(), 'commerce-api');
