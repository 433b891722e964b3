import { isIP } from 'node:net';
import type { NextFunction, Request, RequestHandler } from 'express';
import type { Sequelize } from 'sequelize';
import { GLOBAL_STOREFRONT_SEGMENTS, slugOfCustomDomain } from '../../domain/storefront';

const PUBLIC_PREFIX = '/api/v1/storefront/public/';
/** The public root with or without its trailing slash: both are the landing on a custom domain. */
const PUBLIC_ROOT = /^\/api\/v1\/storefront\/public(?:\/|(?=\?)|$)/;

/**
 * On a workspace's custom domain the public storefront paths leave out the merchant slug
 * (`https://shop.example.com/api/v1/storefront/public/<productSlug>`): the host is matched to its workspace and
 * the URL rewritten to carry the slug before routing (document 1, "Public storefront"). The service's own host,
 * localhost and IP literals are never looked up.
 */
export function customDomainRewrite(sequelize: Sequelize, ownHostname: string): RequestHandler {
  const rewrite = async (req: Request, next: NextFunction, root: RegExpExecArray, host: string) => {
    const slug = await slugOfCustomDomain(sequelize, host);
    if (!slug) return next();
    const rest = req.url.slice(root[0].length);
    const first = rest.split(/[/?]/, 1)[0] ?? '';
    if (GLOBAL_STOREFRONT_SEGMENTS.has(first) || first === slug) return next();
    req.url = `${PUBLIC_PREFIX}${slug}${rest === '' || rest.startsWith('?') ? rest : `/${rest}`}`;
    next();
  };
  // Synchronous for every other request: most never reach the lookup, and need no promise of their own.
  return (req, _res, next) => {
    const root = PUBLIC_ROOT.exec(req.url);
    if (!root) return next();
    const host = req.hostname?.toLowerCase();
    if (!host || host === ownHostname || host === 'localhost' || isIP(host)) return next();
    return rewrite(req, next, root, host);
  };
}
