import express, { type Request, type Response } from 'express';
import { MODULES } from '../../../domain/modules';
import { MAX_CUSTOM_DOMAINS, UpdateStorefrontSettingsBody } from '../../../domain/storefront';
import { CreateWebhookEndpointBody } from '../../../domain/webhooks';
import { AppError } from '../../../lib/errors';
import { EVENT_TYPES } from '../../../lib/event-types';
import { engine } from '../../pages/shared/render';
import { SetModuleBody } from '../../routes/modules/schemas';
import { identityOf, requireCsrf, requireIdentity } from '../session';
import { MODULES as MODULES_PAGE, STOREFRONT, WEBHOOK_ENDPOINT, WEBHOOK_NEW } from './developers-templates';
import { fieldErrorsByPath, textField, type FormPageKit } from './forms';

const BODIES = {
  webhookNew: engine.compile(WEBHOOK_NEW),
  webhookEndpoint: engine.compile(WEBHOOK_ENDPOINT),
  modules: engine.compile(MODULES_PAGE),
  storefront: engine.compile(STOREFRONT),
};

const ATTEMPT_STATUS = {
  succeeded: { text: 'delivered', tone: 'good' },
  retry_scheduled: { text: 'retry scheduled', tone: 'wait' },
  failed: { text: 'failed', tone: 'bad' },
} as const;

const MODULE_TEXT: Record<(typeof MODULES)[number], { title: string; about: string }> = {
  fulfillment: {
    title: 'Fulfillment',
    about: 'Warehouses, stock and shipping for physical products. While it is off, the inventory and shipping routes answer 409 fulfillment_module_disabled.',
  },
  payment: {
    title: 'Payment',
    about: 'Card and wallet payments through the payment provider. While it is off, checkouts are paid by the manual methods (bank transfer, QRIS, e-wallet) and confirmed by you.',
  },
};

/** A form's repeated field (a multiple select) as its values. */
function listField(req: Request, name: string): string[] {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : typeof value === 'string' ? [value] : [];
}

/** The storefront form's fields (nested settings named with dashes) and their text as stored. */
const STOREFRONT_TEXT = ['name', 'description', 'brandColor', 'brandLogo', 'brandBanner'] as const;
const PIXELS = ['metaPixelId', 'googleTagId', 'tiktokPixelId'] as const;
const BANK = ['bankName', 'accountNumber', 'accountHolder', 'instructions'] as const;

/**
 * Developers and Settings: webhook endpoints (create, the secret shown once, the delivery log, a test event, a
 * retry now), modules and storefront settings. Each action is the service call of its API route:
 * `webhookEndpoints.create`, `.listDeliveries`, `.sendTest` (router.ts), `.retryDelivery` (the retry route's
 * update of the waiting delivery workflow), `modules.set` (`POST /v1/modules`) and `storefrontSettings.update`
 * (`PATCH /v1/account/storefront`), each body checked by the route's own schema.
 */
export function mountDeveloperPages({ router, services, page, post, sameOrigin }: FormPageKit): void {
  const { webhookEndpoints, modules, storefrontSettings } = services;

  const newEndpointPage = (req: Request, res: Response, status: number, form: { url?: string; description?: string; events?: string[] }, fieldErrors: Record<string, string> = {}, error?: string) => {
    const chosen = new Set(form.events ?? []);
    const eventTypes = EVENT_TYPES.map((name) => ({ name, selected: chosen.has(name) }));
    page(req, res, { status, title: 'Add a webhook endpoint', active: 'webhooks', error, body: BODIES.webhookNew, context: { form, fieldErrors, eventTypes } });
  };

  router.get('/developers/webhooks/new', (req, res) => newEndpointPage(req, res, 200, {}));

  const endpointPage = async (req: Request, res: Response, id: string, status: number, secret?: string) => {
    const { auth } = identityOf(req);
    const endpoint = await webhookEndpoints.retrieve(auth, id);
    const cursor = typeof req.query.cursor === 'string' ? req.query.cursor : undefined;
    const log = await webhookEndpoints.listDeliveries(auth, id, { limit: 50, cursor });
    // Newest first: an event's first row here is where its delivery stands; only a waiting one has an attempt to bring forward.
    const seen = new Set<string>();
    const attempts = log.data.map((row) => {
      const newest = !seen.has(row.eventId);
      seen.add(row.eventId);
      return { ...row, statusText: ATTEMPT_STATUS[row.status].text, tone: ATTEMPT_STATUS[row.status].tone, retryable: newest && row.status === 'retry_scheduled' };
    });
    page(req, res, { status, title: `Webhook ${endpoint.url}`, active: 'webhooks', body: BODIES.webhookEndpoint, context: { endpoint, secret, attempts, nextCursor: log.nextCursor } });
  };

  // The secret is in this one response (201), never in a redirect's URL or the session, like a new key's value.
  post('/developers/webhooks', async (req, res) => {
    const form = { url: textField(req, 'url').trim(), description: textField(req, 'description'), events: listField(req, 'events') };
    const parsed = CreateWebhookEndpointBody.safeParse({ url: form.url, events: form.events, ...(form.description.trim() ? { description: form.description } : {}) });
    if (!parsed.success) return newEndpointPage(req, res, 400, form, fieldErrorsByPath(parsed.error));
    let created;
    try {
      created = await webhookEndpoints.create(identityOf(req).auth, parsed.data);
    } catch (err) {
      // A URL the service will not post to (a private address) is about the URL; the plan's cap is said above the form.
      if (err instanceof AppError && err.code === 'VALIDATION_ERROR') return newEndpointPage(req, res, 400, form, { url: err.message });
      if (err instanceof AppError && err.code === 'QUOTA_EXCEEDED') return newEndpointPage(req, res, 403, form, {}, err.message);
      throw err;
    }
    await endpointPage(req, res, created.id, 201, created.secret);
  });

  router.get('/developers/webhooks/:id', (req, res) => endpointPage(req, res, String(req.params.id), 200));

  post('/developers/webhooks/:id/deliveries/:eventId/retry', async (req, res) => {
    const id = String(req.params.id);
    const retried = await webhookEndpoints.retryDelivery(identityOf(req).auth, id, String(req.params.eventId));
    res.redirect(303, `${req.baseUrl}/developers/webhooks/${id}?notice=retry-${retried.status}`);
  });

  router.get('/developers/modules', async (req, res) => {
    const flags = await modules.get(identityOf(req).auth);
    const shown = MODULES.map((name) => ({ name, enabled: flags[name], ...MODULE_TEXT[name] }));
    page(req, res, { status: 200, title: 'Modules', active: 'modules', body: BODIES.modules, context: { modules: shown } });
  });

  post('/developers/modules', async (req, res) => {
    const parsed = SetModuleBody.safeParse({ module: textField(req, 'module'), enabled: textField(req, 'enabled') === 'true' });
    if (!parsed.success) throw new AppError('VALIDATION_ERROR', 'The form is incomplete; open the page again');
    await modules.set(identityOf(req).auth.accountId, parsed.data);
    res.redirect(303, `${req.baseUrl}/developers/modules?notice=module-${parsed.data.enabled ? 'on' : 'off'}`);
  });

  const settingsPage = async (req: Request, res: Response, status: number, form?: Record<string, string>, fieldErrors: Record<string, string> = {}) => {
    const settings = await storefrontSettings.get(identityOf(req).auth);
    const m = settings.manualPayment;
    const shown = form ?? {
      ...Object.fromEntries(STOREFRONT_TEXT.map((name) => [name, settings[name] ?? ''])),
      ...Object.fromEntries(PIXELS.map((name) => [name, settings.pixels[name] ?? ''])),
      customDomains: settings.customDomains.join('\n'),
      ...Object.fromEntries(BANK.map((name) => [`manualPayment-${name}`, m[name] ?? ''])),
      'manualPayment-qris-imageUrl': m.qris.imageUrl ?? '',
      'manualPayment-qris-instructions': m.qris.instructions ?? '',
      'manualPayment-ewallet-instructions': m.ewallet.instructions ?? '',
      'manualPayment-intlWallet-instructions': m.intlWallet.instructions ?? '',
    };
    page(req, res, { status, title: 'Storefront settings', active: 'storefront', body: BODIES.storefront, context: { form: shown, fieldErrors, maxDomains: MAX_CUSTOM_DOMAINS } });
  };

  router.get('/settings/storefront', (req, res) => settingsPage(req, res, 200));

  // Its own parser: five instruction texts of up to 2000 characters each pass the dashboard's 8 KB form limit.
  const settingsForm = express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 30 });
  router.post('/settings/storefront', sameOrigin, settingsForm, requireIdentity, requireCsrf, async (req, res) => {
    const names = [...STOREFRONT_TEXT, ...PIXELS, 'customDomains', ...BANK.map((n) => `manualPayment-${n}`), 'manualPayment-qris-imageUrl', 'manualPayment-qris-instructions', 'manualPayment-ewallet-instructions', 'manualPayment-intlWallet-instructions'];
    const form = Object.fromEntries(names.map((name) => [name, textField(req, name)]));
    // Every field is sent, as the page shows them all: an empty one clears its setting (the schema's blank → null).
    const input = {
      ...Object.fromEntries(STOREFRONT_TEXT.map((name) => [name, form[name]])),
      ...Object.fromEntries(PIXELS.map((name) => [name, form[name]])),
      customDomains: form.customDomains!.split(/\r?\n/).map((line) => line.trim()).filter(Boolean),
      manualPayment: {
        ...Object.fromEntries(BANK.map((name) => [name, form[`manualPayment-${name}`]])),
        qris: { imageUrl: form['manualPayment-qris-imageUrl'], instructions: form['manualPayment-qris-instructions'] },
        ewallet: { instructions: form['manualPayment-ewallet-instructions'] },
        intlWallet: { instructions: form['manualPayment-intlWallet-instructions'] },
      },
    };
    const parsed = UpdateStorefrontSettingsBody.safeParse(input);
    if (!parsed.success) return settingsPage(req, res, 400, form, fieldErrorsByPath(parsed.error));
    try {
      await storefrontSettings.update(identityOf(req).auth, parsed.data);
    } catch (err) {
      // A host another workspace already serves is about the domains field.
      if (err instanceof AppError && err.code === 'VALIDATION_ERROR') return settingsPage(req, res, 409, form, { customDomains: err.message });
      throw err;
    }
    res.redirect(303, `${req.baseUrl}/settings/storefront?notice=storefront-saved`);
  });
}
