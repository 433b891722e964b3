import type { RequestHandler } from 'express';
import { recordMetric } from '../../lib/metrics';
import { routeSpanNamer } from '../../lib/tracing';

/** The route label of a request no route answered (a 404, OPTIONS, the API docs' static files). */
export const UNMATCHED_ROUTE = 'unmatched';

interface MatchedRoute {
  path: unknown;
}

/**
 * Counts every response by route template, method and status, with its latency (lib/metrics.ts). The template is
 * Express's matched route, prefixed with the mount path of its router (`/api/v1/products/:id`), never the raw URL,
 * so ids never become label values. Express sets `req.route` when a route matches, while `req.baseUrl` is that
 * router's mount path; the base is taken at that moment because Express puts it back when the request leaves the
 * router (e.g. a thrown error on its way to the app's error handler). The same template names the request's span.
 */
export const httpMetrics: RequestHandler = (req, res, next) => {
  const started = process.hrtime.bigint();
  let matched: MatchedRoute | undefined;
  let template = UNMATCHED_ROUTE;
  const nameSpan = routeSpanNamer(req.method);
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => matched,
    set(route: MatchedRoute) {
      matched = route;
      const path = typeof route.path === 'string' ? route.path : String(route.path);
      // A resource's own root (`/` under its prefix) is named by the prefix alone, as declared.
      template = path === '/' && req.baseUrl !== '' ? req.baseUrl : `${req.baseUrl}${path}`;
      nameSpan(template);
    },
  });
  res.once('close', () => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    // A client that left before the answer was sent is "aborted": the status set by then was never seen.
    const status = res.writableFinished ? String(res.statusCode) : 'aborted';
    recordMetric.httpRequest({ method: req.method, route: template, status }, seconds);
  });
  next();
};
