import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { DashboardIdentity, DashboardSessionService } from '../../domain/users';
import { AppError } from '../../lib/errors';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/** `Secure` cookies everywhere but loopback, where local development runs over plain http. */
export function isLoopback(req: Request): boolean {
  const host = req.hostname.toLowerCase();
  return LOOPBACK.has(host) || host.endsWith('.localhost') || host.startsWith('127.');
}

/** A Secure cookie takes the `__Host-` prefix: the browser then refuses it from any other path, domain or plain http. */
export const sessionCookieName = (req: Request) => (isLoopback(req) ? 'dashboard_session' : '__Host-dashboard_session');
const loginCookieName = (req: Request) => (isLoopback(req) ? 'dashboard_login' : '__Host-dashboard_login');

export function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name) {
      // Our values are base64url; anything else (a malformed escape included) is no session, never a 500.
      const value = part.slice(index + 1).trim();
      return /^[\w-]{1,100}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

function cookieAttributes(req: Request, maxAgeSeconds: number | null): string {
  return ['Path=/', 'HttpOnly', 'SameSite=Lax', ...(isLoopback(req) ? [] : ['Secure']), ...(maxAgeSeconds === null ? [] : [`Max-Age=${maxAgeSeconds}`])].join('; ');
}

function appendCookie(res: Response, value: string): void {
  const existing = res.getHeader('Set-Cookie');
  res.setHeader('Set-Cookie', [...(Array.isArray(existing) ? existing : existing ? [String(existing)] : []), value]);
}

export function setSessionCookie(req: Request, res: Response, token: string, expiresAt: Date): void {
  const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - Date.now()) / 1000));
  appendCookie(res, `${sessionCookieName(req)}=${token}; ${cookieAttributes(req, maxAge)}`);
}

export function clearSessionCookie(req: Request, res: Response): void {
  appendCookie(res, `${sessionCookieName(req)}=; ${cookieAttributes(req, 0)}`);
}

/**
 * The sign-in form's CSRF token before any session exists (login CSRF): a random value in a short-lived cookie and
 * in the form, compared on post (double submit; a cross-site page can neither read nor set the cookie).
 */
export function issueLoginToken(req: Request, res: Response): string {
  const existing = readCookie(req, loginCookieName(req));
  const token = existing && /^[\w-]{43}$/.test(existing) ? existing : randomBytes(32).toString('base64url');
  appendCookie(res, `${loginCookieName(req)}=${token}; ${cookieAttributes(req, 3600)}`);
  return token;
}

const sameToken = (a: string | undefined, b: string | undefined) =>
  typeof a === 'string' && typeof b === 'string' && a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

const csrfRefused = () => new AppError('FORBIDDEN', 'This form has expired or did not come from the dashboard; reload the page and try again');

export function checkLoginToken(req: Request): void {
  if (!sameToken(readCookie(req, loginCookieName(req)), formField(req, '_csrf'))) throw csrfRefused();
}

export function formField(req: Request, name: string): string | undefined {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : undefined;
}

/** Resolves the session cookie (if any) on every dashboard request. */
export function loadIdentity(sessions: DashboardSessionService): RequestHandler {
  return async (req, _res, next) => {
    const token = readCookie(req, sessionCookieName(req));
    req.dashboard = token ? await sessions.resolve(token) : null;
    next();
  };
}

/** Signed-in pages: without a session, to the sign-in page (a GET) or refused (a form post). */
export function requireIdentity(req: Request, res: Response, next: NextFunction): void {
  if (req.dashboard) return next();
  if (req.method === 'GET' || req.method === 'HEAD') return res.redirect(303, `${req.baseUrl}/login`);
  throw new AppError('UNAUTHORIZED', 'Your session has ended; sign in again');
}

/** Every signed-in form carries the session's synchronizer token. */
export function requireCsrf(req: Request, _res: Response, next: NextFunction): void {
  if (!sameToken(req.dashboard?.csrfToken, formField(req, '_csrf'))) throw csrfRefused();
  next();
}

export const identityOf = (req: Request): DashboardIdentity => {
  if (!req.dashboard) throw new AppError('UNAUTHORIZED', 'Your session has ended; sign in again');
  return req.dashboard;
};

/**
 * A multipart form's token: its hidden field comes before the file (the form's order), and the upload's parser
 * hands it here before a byte of the file is stored (domain/products/files.ts, `LeadingFields`).
 */
export function assertCsrfToken(req: Request, token: string | undefined): void {
  if (!sameToken(req.dashboard?.csrfToken, token)) throw csrfRefused();
}
