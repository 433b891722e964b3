import express, { type Router } from 'express';
import { AppError } from '../../lib/errors';

/** Methods an endpoint declares, by Express path; ApiRouter fills it as routes are added. */
export type MethodsByPath = Map<string, Set<'get' | 'post' | 'patch' | 'delete'>>;

/**
 * Mounted after every route: a known path called with a method it does not serve is `405 METHOD_NOT_ALLOWED`
 * with `Allow`, not a 404 (Express itself only answers OPTIONS that way). HEAD comes with GET from Express.
 */
export function methodNotAllowed(methodsByPath: MethodsByPath): Router {
  const router = express.Router();
  for (const [path, methods] of methodsByPath) {
    const allow = [...methods].flatMap((m) => (m === 'get' ? ['GET', 'HEAD'] : [m.toUpperCase()])).join(', ');
    router.all(path, (req, res) => {
      res.setHeader('Allow', allow);
      throw new AppError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${req.path}; allowed: ${allow}`);
    });
  }
  return router;
}
