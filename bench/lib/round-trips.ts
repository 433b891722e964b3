import { subscribe } from 'node:diagnostics_channel';
import pg from 'pg';

/**
 * Preloaded (`--import`) into every server the bench starts, the full stack and the ceilings alike: counts
 * the statements this process's pg clients send (pg has no pipelining, so each one is a database round
 * trip; Sequelize and plain pg pools both go through Client#query) and the HTTP requests it receives. Both
 * are counted here rather than against the load generator's total, so requests still in flight when a
 * window closes count on both sides of the ratio. The bench reads them over IPC before and after the
 * measured window (child-server.ts).
 */
export const ROUND_TRIPS_REQUEST = 'bench:round-trips';

let roundTrips = 0;
let requests = 0;
subscribe('http.server.request.start', () => {
  requests += 1;
});
const query: (...args: unknown[]) => unknown = pg.Client.prototype.query;
pg.Client.prototype.query = function countedQuery(this: pg.Client, ...args: unknown[]) {
  roundTrips += 1;
  return Reflect.apply(query, this, args);
} as typeof pg.Client.prototype.query;

process.on('message', (message) => {
  if (message === ROUND_TRIPS_REQUEST) process.send?.({ roundTrips, requests });
});
// The channel must not keep a server alive once it has shut down.
process.channel?.unref();
