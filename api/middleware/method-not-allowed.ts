import express, { type Router } from 'express';
import { AppError } from '../../lib/errors';

/** Methods an endpoint declares, by Express path; ApiRouter fills it as routes are added. */
export type MethodsByPath = Map<string, Set<'get' | 'post' | 'patch' | 'delete'>>;

const allowHeader = (methods: Set<string>) => [...methods].flatMap((m) => (m === 'get' ? ['GET', 'HEAD'] : [m.toUpperCase()])).join(', ');

/** Fewer path parameters first, then longer paths: `/public/track` before `/public/:merchantSlug`. */
const mostSpecificFirst = (a: string, b: string) => (a.split(':').length - b.split(':').length) || b.split('/').length - a.split('/').length;

/**
 * Mounted before the routes: `OPTIONS` answers `204` with the methods of the one documented path the URL belongs
 * to, the most specific that matches. Express's own answer would merge every route whose pattern matches (a
 * `POST /public/track` and the `GET /public/:merchantSlug` that the same URL also fits).
 */
export function optionsResponder(methodsByPath: MethodsByPath): Router {
  const router = express.Router();
  for (const path of [...methodsByPath.keys()].sort(mostSpecificFirst)) {
    const allow = allowHeader(methodsByPath.get(path)!);
    router.options(path, (_req, res) => {
      res.setHeader('Allow', allow);
      res.status(204).end();
    });
  }
  return router;
}

/**
 * Mounted after every route: a known path called with a method it does not serve is `405 METHOD_NOT_ALLOWED`
 * with `Allow`, not a 404 (Express itself only answers OPTIONS that way). HEAD comes with GET from Express.
 */
export function methodNotAllowed(methodsByPath: MethodsByPath): Router {
  const router = express.Router();
  for (const [path, methods] of methodsByPath) {
    const allow = allowHeader(methods);
    router.all(path, (req, res) => {
      res.setHeader('Allow', allow);
      throw new AppError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${req.path}; allowed: ${allow}`);
    });
  }
  return router;
}
