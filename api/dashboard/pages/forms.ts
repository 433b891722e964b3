import type { Request, RequestHandler, Response, Router } from 'express';
import type { z } from 'zod';
import type { Services } from '../../../domain/services';
import type { Config } from '../../../lib/config';
import type { DashboardFrame, PageName } from '../render';

export type Handler = (req: Request, res: Response) => Promise<void> | void;

/**
 * What router.ts hands the products, developers and settings pages: its router, the services, the configuration, and
 * the dashboard's ways to render and to take a form (the same-origin check alone for an upload, which reads its body).
 */
export interface FormPageKit {
  router: Router;
  services: Services;
  config: Config;
  /** Renders a signed-in page (the notice of `?notice=` from router.ts's fixed table). */
  page(req: Request, res: Response, frame: Omit<DashboardFrame, 'base' | 'identity' | 'notice'> & { active: PageName }): void;
  /** A signed-in form post (same origin, the session, its CSRF token), its body urlencoded up to 8 KB. */
  post(path: string, handler: Handler): void;
  /** The same-origin check alone, for a route that reads its body itself (an upload). */
  sameOrigin: RequestHandler;
}

/** A refused form's messages by field: the first message of each field, the issue's path joined with dashes (a name templates can look up). */
export function fieldErrorsByPath(error: z.ZodError): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of error.issues) {
    const field = issue.path.filter((part) => typeof part === 'string').join('-');
    errors[field] ??= issue.message;
  }
  return errors;
}

/** A urlencoded field as text (absent, or sent twice: empty). */
export function textField(req: Request, name: string): string {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}

/** A whole number typed in a form (`1500`, `1,500`); null when it is not one. */
export function wholeNumber(text: string): number | null {
  const digits = text.trim().replace(/[,_\s]/g, '');
  return /^\d{1,15}$/.test(digits) ? Number(digits) : null;
}
