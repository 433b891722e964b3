import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * Holds the OpenAPI document to what the API answers: every response an API instance of the tests sends is
 * recorded (its method, path and status), and when the instance closes, a status its operation does not declare
 * fails the test file, naming the operation. So a route that can answer an undeclared status is caught by the
 * first test that makes it answer it, with no list to keep up to date. Paths outside the document (unknown routes,
 * pages) and methods a path does not serve (405) are not operations and are left out.
 */

export type Operations = Record<string, Record<string, { responses: Record<string, unknown> }>>;

interface Observation {
  method: string;
  path: string;
  status: number;
}

/** The document's paths as segment patterns: `{name}` matches any one segment. */
function templatesOf(paths: Operations) {
  return Object.keys(paths).map((template) => {
    const segments = template.split('/');
    return { template, segments, literals: segments.filter((s) => !s.startsWith('{')).length };
  });
}

/** The operation a request path belongs to: among templates that fit and serve the method, the most literal one (as the routes are ordered). */
function operationOf(paths: Operations, templates: ReturnType<typeof templatesOf>, method: string, path: string): string | undefined {
  const segments = path.split('/');
  const fits = templates.filter(
    (t) => t.segments.length === segments.length && t.segments.every((s, i) => s.startsWith('{') || s === segments[i]) && paths[t.template]![method] !== undefined,
  );
  return fits.sort((a, b) => b.literals - a.literals)[0]?.template;
}

export function watchDeclaredStatuses(server: Server) {
  const observed: Observation[] = [];
  server.on('request', (req: IncomingMessage & { originalUrl?: string }, res: ServerResponse) => {
    res.on('finish', () => {
      // Express keeps the URL as received in originalUrl; `url` may be the part a mounted router saw.
      const url = new URL(req.originalUrl ?? req.url ?? '/', 'http://api.test');
      if (url.pathname.startsWith('/api/v1/')) observed.push({ method: req.method!.toLowerCase(), path: url.pathname.slice('/api'.length), status: res.statusCode });
    });
  });

  return {
    answered: () => observed.length,
    /** The statuses answered that their operation does not declare, one line per operation and status. */
    undeclared(document: { paths: Operations }): string[] {
      const templates = templatesOf(document.paths);
      const found = new Map<string, string>();
      for (const { method, path, status } of observed) {
        const template = operationOf(document.paths, templates, method, path);
        const key = `${method.toUpperCase()} ${template} answered ${status}`;
        if (template && !(String(status) in document.paths[template]![method]!.responses) && !found.has(key)) found.set(key, `${key} (${path})`);
      }
      return [...found.values()];
    },
  };
}
