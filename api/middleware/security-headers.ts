import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * helmet's headers on every response (nosniff, HSTS, frame and referrer policies, …) with the CSP of a JSON
 * API: nothing may load, nothing may frame it. They never vary by request, so helmet runs once, at startup, and
 * each request gets the headers it produced (helmet's own chain of a dozen middlewares cost a tenth of a cheap
 * read: docs/decisions/http.md, "Per-request cost").
 */
export const securityHeaders: RequestHandler = precomputed(
  helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  }),
);

/** The headers `middleware` sets on a response, replayed onto every response; refuses one that does anything else. */
function precomputed(middleware: RequestHandler): RequestHandler {
  const headers: Array<[string, string]> = [];
  const removed: string[] = [];
  let nextCalled = false;
  const recorder = {
    setHeader(name: string, value: string) {
      headers.push([name, value]);
    },
    removeHeader(name: string) {
      removed.push(name);
    },
  };
  middleware({} as Parameters<RequestHandler>[0], recorder as unknown as Parameters<RequestHandler>[1], () => {
    nextCalled = true;
  });
  if (!nextCalled || headers.length === 0) throw new Error('security headers: the middleware did not set its headers synchronously');
  return (_req, res, next) => {
    for (const [name, value] of headers) res.setHeader(name, value);
    for (const name of removed) res.removeHeader(name);
    next();
  };
}

/**
 * The Swagger UI page's CSP, replacing the API's. swagger-ui-express serves its bundle and its init script as
 * files under the page (no inline script, no eval), so scripts need only 'self'; styles also need
 * 'unsafe-inline' (the page's <style> blocks, React's style attributes); "Try it out" calls the documented server.
 */
export function docsContentSecurityPolicy(publicBaseUrl: string): RequestHandler {
  return helmet.contentSecurityPolicy({
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      connectSrc: ["'self'", new URL(publicBaseUrl).origin],
      objectSrc: ["'none'"],
      baseUri: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
  });
}

/** On every authenticated response: they carry tenant data, some a key value or a webhook secret shown once. */
export const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'no-store');
  next();
};

/**
 * The hosted checkout pages' CSP (api/pages/checkout), replacing the API's. No script may run at all: the pages
 * work without JavaScript. Styles come from the pages' own stylesheet and the one <style> that carries the
 * merchant's colour, under this response's nonce; images from this origin and the merchant logo's origin only;
 * forms post only back here (and, for a provider-mode session, on to the provider's page the pay answer redirects
 * to: browsers hold a form's redirects to `form-action` too). Nothing else loads, and no other site may frame the page.
 */
export function checkoutPageContentSecurityPolicy({ nonce, imageOrigins, formOrigins = [] }: { nonce: string; imageOrigins: string[]; formOrigins?: string[] }): string {
  return [
    "default-src 'none'",
    "script-src 'none'",
    `style-src 'self' 'nonce-${nonce}'`,
    ["img-src 'self'", ...imageOrigins].join(' '),
    ["form-action 'self'", ...formOrigins].join(' '),
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join(';');
}
