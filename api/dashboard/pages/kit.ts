import type { Request, Response, Router } from 'express';
import type { z } from 'zod';
import type { Services } from '../../../domain/services';
import { AppError } from '../../../lib/errors';
import { formatMoney } from '../../../lib/money';
import { engine } from '../../pages/shared/render';
import type { Active, DashboardFrame } from '../render';

export type Handler = (req: Request, res: Response) => Promise<void> | void;

/** A page as router.ts's `page` sends it: the layout adds the base, the session's identity and the notice. */
export type PageFrame = Omit<DashboardFrame, 'base' | 'identity' | 'notice'> & { active: Active };

/** What router.ts hands each group of pages: its router (signed in from here on), the services and its two helpers. */
export interface PageKit {
  router: Router;
  services: Services;
  /** Renders a signed-in page. */
  page: (req: Request, res: Response, frame: PageFrame) => void;
  /** Mounts a signed-in form post: same origin, the session, its CSRF token. */
  post: (path: string, handler: Handler) => unknown;
}

/** Values of a form as it was sent, to show it again beside its errors. */
export type FormValues = Record<string, string>;
export type FieldErrors = Record<string, string>;

/** A zod refusal as messages by field: the first issue of each field is shown beside it. */
export function fieldErrorsOf(error: z.ZodError): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of error.issues) {
    const field = String(issue.path[0] ?? 'form');
    errors[field] ??= issue.message;
  }
  return errors;
}

/**
 * A refusal of ours that names its field (a domain VALIDATION_ERROR's details), as a message beside that field;
 * null for anything else, which the error pages handle.
 */
export function fieldErrorOfAppError(err: unknown): FieldErrors | null {
  if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR' || !Array.isArray(err.details)) return null;
  const [first] = err.details as { field?: string; message?: string }[];
  return first?.field ? { [first.field]: err.message.replace(/^\w+: /, '') } : null;
}

export const queryText = (req: Request, name: string): string | undefined => (typeof req.query[name] === 'string' ? req.query[name] : undefined);

/** One of `known`, or undefined: an unknown filter value shows everything, as the checkouts filter does. */
export const oneOf = <T extends string>(known: readonly T[], value: unknown): T | undefined => known.find((k) => k === value);

/** `dashes_between` → `dashes between`: statuses as words on the page. */
export const words = (status: string) => status.replaceAll('_', ' ');

// Billing records may be in any ISO 4217 currency (plans, invoices), where the buyer pages' `money` knows IDR and USD.
engine.registerHelper('moneyOf', (amount: number, currency: string) => formatMoney(amount, currency));
engine.registerHelper('words', (status: string) => words(status));
