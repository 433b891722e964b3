import type { Request, RequestHandler } from 'express';
import { AppError } from '../../lib/errors';

/**
 * CSRF protection for the keyless forms of the hosted pages (docs/decisions/hosted-checkout.md). A browser says
 * where a request comes from: `Sec-Fetch-Site` (every current browser) must be `same-origin`; without it the
 * `Origin` header must name this host (the Host the buyer used, or PUBLIC_BASE_URL's). `Origin: null` (a sandboxed
 * frame, a cross-origin post under the pages' `same-origin` referrer policy) is refused. A request with neither
 * header is not a browser's form post: nothing ambient rides on it (the session id in the path is the buyer's only
 * credential), so it is let through like any API client.
 */
export function sameOriginForm(publicBaseUrl: string): RequestHandler {
  const publicHost = new URL(publicBaseUrl).host.toLowerCase();
  const refused = () => new AppError('FORBIDDEN', 'This form can only be submitted from its own page');
  const originAllowed = (req: Request, origin: string) => {
    try {
      const host = new URL(origin).host.toLowerCase();
      return host === publicHost || host === req.headers.host?.toLowerCase();
    } catch {
      return false;
    }
  };
  return (req, _res, next) => {
    const site = req.headers['sec-fetch-site'];
    const origin = req.headers.origin;
    if (site !== undefined) {
      if (site !== 'same-origin') throw refused();
    } else if (origin !== undefined && !originAllowed(req, origin)) {
      throw refused();
    }
    next();
  };
}
