import { request } from 'node:http';
import { Writable } from 'node:stream';
import { createHash } from 'node:crypto';
import { ApiKey, AuditLog, CheckoutRefund, CheckoutSession, DashboardSession, EmailMessage, Product } from '../../db/models';
import { createMailer } from '../../lib/email';
import { createLogger } from '../../lib/logger';
import { insertCheckoutSessionRow, lineOf } from '../fixtures/checkout';
import { insertDelivery } from '../fixtures/deliveries';
import { insertProduct } from '../fixtures/products';
import { insertWebhookEndpoint } from '../fixtures/webhooks';
import { http, useTestApi } from '../helpers/context';
import { createDashboardUser, csrfOf, DashboardClient } from '../helpers/dashboard';
import { startTestSmtpServer } from '../helpers/smtp-server';
import { waitFor } from '../helpers/wait';
import { startTestWorker } from '../helpers/worker';

jest.setTimeout(120_000);

/** This file's own queue: the resent e-mails' workflows run on its worker only. */
const TASK_QUEUE = `dashboard-${process.pid}`;
const t = useTestApi({ DASHBOARD_SIGNIN_LIMIT_PER_MINUTE: '100000', TEMPORAL_TASK_QUEUE: TASK_QUEUE, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });

async function signedIn(workspace = t.ctx.createWorkspace()) {
  const ws = await workspace;
  const user = await createDashboardUser(t.ctx.sequelize, ws.accountId);
  const client = new DashboardClient(t.api.baseUrl);
  const signIn = await client.signIn(user.email, user.password);
  expect({ status: signIn.status, location: signIn.location }).toEqual({ status: 303, location: '/dashboard' });
  return { ws, user, client };
}

async function namedProduct(owner: { accountId: string }, name: string, published = false): Promise<string> {
  const id = await insertProduct(t.ctx.sequelize, owner);
  await Product.update({ name, published }, { where: { id } });
  return id;
}

/** A request naming another Host than loopback (fetch does not let a caller set Host). */
function requestAs(host: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; setCookie: string[]; text: string }> {
  const url = new URL(t.api.baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers: { host, ...headers } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode!, setCookie: res.headers['set-cookie'] ?? [], text }));
    });
    req.once('error', reject);
    req.end(body);
  });
}

describe('dashboard sign-in', () => {
  it('sends a signed-out browser to the form, signs in with e-mail and password, and says which workspace and mode it shows', async () => {
    const ws = await t.ctx.createWorkspace();
    const user = await createDashboardUser(t.ctx.sequelize, ws.accountId);
    const client = new DashboardClient(t.api.baseUrl);
    expect(await client.get('/dashboard/products')).toMatchObject({ status: 303, location: '/dashboard/login' });

    const form = await client.get('/dashboard/login');
    expect(form.status).toBe(200);
    expect(form.headers.get('content-security-policy')).toContain("script-src 'none'");
    expect(form.text).not.toMatch(/<script/i);
    expect(form.text).toMatch(/<label for="email">E-mail<\/label>/);

    const wrong = await client.request('POST', '/dashboard/login', { _csrf: csrfOf(form.text), email: user.email, password: 'not-the-password' });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('The e-mail or the password is not right.');
    const unknown = await client.request('POST', '/dashboard/login', { _csrf: csrfOf(form.text), email: `nobody.${user.email}`, password: user.password });
    expect(unknown.status).toBe(401);
    expect(client.cookies.has('dashboard_session')).toBe(false);

    const ok = await client.request('POST', '/dashboard/login', { _csrf: csrfOf(form.text), email: user.email.toUpperCase(), password: user.password });
    expect({ status: ok.status, location: ok.location }).toEqual({ status: 303, location: '/dashboard' });
    const cookie = ok.headers.getSetCookie().find((c) => c.startsWith('dashboard_session='))!;
    expect(cookie).toMatch(/; Path=\/; HttpOnly; SameSite=Lax; Max-Age=43\d{3}$/);
    expect(cookie).not.toMatch(/Secure/);
    // Stored as its hash only.
    const token = client.cookies.get('dashboard_session')!;
    const row = (await DashboardSession.findOne({ where: { userId: user.userId } }))!;
    expect(row.tokenHash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(row.get())).not.toContain(token);

    const overview = await client.get('/dashboard');
    expect(overview.status).toBe(200);
    expect(overview.text).toContain('Test mode: you are viewing test data.');
    expect(overview.text).toContain(ws.accountId);
    expect(overview.headers.get('cache-control')).toBe('no-store');

    const live = await client.post('/dashboard/mode', { environment: 'live' });
    expect(live.status).toBe(303);
    expect((await client.get('/dashboard')).text).toContain('Live mode: real customers and money.');
  });

  it('sets Secure, __Host- cookies outside loopback', async () => {
    const ws = await t.ctx.createWorkspace();
    const user = await createDashboardUser(t.ctx.sequelize, ws.accountId);
    const form = await requestAs('shop.example.com', 'GET', '/dashboard/login');
    expect(form.setCookie[0]).toMatch(/^__Host-dashboard_login=[\w-]+; Path=\/; HttpOnly; SameSite=Lax; Secure; Max-Age=3600$/);
    const loginToken = /^__Host-dashboard_login=([\w-]+)/.exec(form.setCookie[0]!)![1]!;
    const body = new URLSearchParams({ _csrf: csrfOf(form.text), email: user.email, password: user.password }).toString();
    const ok = await requestAs('shop.example.com', 'POST', '/dashboard/login', { cookie: `__Host-dashboard_login=${loginToken}`, 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' }, body);
    expect(ok.status).toBe(303);
    expect(ok.setCookie.find((c) => c.startsWith('__Host-dashboard_session='))).toMatch(/HttpOnly; SameSite=Lax; Secure; Max-Age=\d+$/);
  });

  it('never adopts a session id planted before sign-in, and signing in ends the browser’s previous session', async () => {
    const ws = await t.ctx.createWorkspace();
    const user = await createDashboardUser(t.ctx.sequelize, ws.accountId);
    const client = new DashboardClient(t.api.baseUrl);
    client.cookies.set('dashboard_session', '%E0%A4%A');
    expect(await client.get('/dashboard')).toMatchObject({ status: 303, location: '/dashboard/login' });
    client.cookies.set('dashboard_session', 'attacker-chosen-value-attacker-chosen-value');
    expect(await client.get('/dashboard')).toMatchObject({ status: 303, location: '/dashboard/login' });
    await client.signIn(user.email, user.password);
    const first = client.cookies.get('dashboard_session')!;
    expect(first).not.toBe('attacker-chosen-value-attacker-chosen-value');
    expect(first).toMatch(/^[\w-]{43}$/);

    // An attacker who knew the first session's id gains nothing once the user signs in again.
    const attacker = new DashboardClient(t.api.baseUrl);
    attacker.cookies.set('dashboard_session', first);
    expect((await attacker.get('/dashboard')).status).toBe(200);
    await client.signIn(user.email, user.password);
    expect(client.cookies.get('dashboard_session')).not.toBe(first);
    expect(await attacker.get('/dashboard')).toMatchObject({ status: 303, location: '/dashboard/login' });
    expect((await client.get('/dashboard')).status).toBe(200);
  });

  it('signs out, signs out everywhere, and lets sessions expire', async () => {
    const ws = await t.ctx.createWorkspace();
    const user = await createDashboardUser(t.ctx.sequelize, ws.accountId);
    const [a, b, c] = [new DashboardClient(t.api.baseUrl), new DashboardClient(t.api.baseUrl), new DashboardClient(t.api.baseUrl)];
    for (const client of [a, b, c]) await client.signIn(user.email, user.password);

    const out = await a.post('/dashboard/logout');
    expect(out).toMatchObject({ status: 303, location: '/dashboard/login?notice=signed-out' });
    expect(a.cookies.has('dashboard_session')).toBe(false);
    expect((await b.get('/dashboard')).status).toBe(200);

    const everywhere = await b.post('/dashboard/logout-everywhere', {}, '/dashboard/account');
    expect(everywhere.location).toBe('/dashboard/login?notice=signed-out-everywhere');
    expect((await c.get('/dashboard')).status).toBe(303);
    expect(await DashboardSession.count({ where: { userId: user.userId } })).toBe(0);

    await b.signIn(user.email, user.password);
    expect((await b.get('/dashboard')).status).toBe(200);
    // A session ends with its user's membership of the workspace it shows.
    await t.ctx.sequelize.query('DELETE FROM memberships WHERE user_id = :userId', { replacements: { userId: user.userId } });
    expect(await b.get('/dashboard')).toMatchObject({ status: 303, location: '/dashboard/login' });
    await t.ctx.sequelize.query(`INSERT INTO memberships (user_id, account_id, role) VALUES (:userId, :accountId, 'owner')`, { replacements: { userId: user.userId, accountId: ws.accountId } });
    expect((await b.get('/dashboard')).status).toBe(200);
    await DashboardSession.update({ expiresAt: new Date(Date.now() - 1000) }, { where: { userId: user.userId } });
    expect(await b.get('/dashboard')).toMatchObject({ status: 303, location: '/dashboard/login' });
  });

  it('limits sign-in attempts per client IP', async () => {
    const limited = await t.ctx.startApi({ DASHBOARD_SIGNIN_LIMIT_PER_MINUTE: '3' });
    const ws = await t.ctx.createWorkspace();
    const user = await createDashboardUser(t.ctx.sequelize, ws.accountId);
    const client = new DashboardClient(limited.baseUrl);
    // Another process's counter for 127.0.0.1 may already hold attempts from this minute: at most 3 go through.
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await client.signIn(user.email, 'wrong-password-1')).status);
    expect(statuses[3]).toBe(429);
    const refused = await client.signIn(user.email, user.password);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused.text).toContain('Too many sign-in attempts');
    expect(client.cookies.has('dashboard_session')).toBe(false);
  });

  it('never logs a password or a session token', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString('utf8')), done()) });
    const logged = await t.ctx.startApi({ DASHBOARD_SIGNIN_LIMIT_PER_MINUTE: '100000' }, { logger: createLogger('info', 'api-test', sink) });
    const ws = await t.ctx.createWorkspace();
    const user = await createDashboardUser(t.ctx.sequelize, ws.accountId);
    const client = new DashboardClient(logged.baseUrl);
    await client.signIn(user.email, `${user.password}-wrong`);
    await client.signIn(user.email, user.password);
    await client.get('/dashboard');
    await client.post('/dashboard/logout');
    const log = lines.join('');
    expect(log).toContain('/dashboard/login');
    expect(log).not.toContain(user.password);
    expect(log).not.toContain('correct-horse');
    expect(log).not.toMatch(/dashboard_session=[\w-]{10}/);
  });
});

describe('dashboard CSRF', () => {
  it('refuses a form without the session’s token, with another session’s token, or from another site, and changes nothing', async () => {
    const { ws, client } = await signedIn();
    const other = await signedIn();
    const productId = await insertProduct(t.ctx.sequelize, ws);
    const otherToken = csrfOf((await other.client.get('/dashboard')).text);

    const missing = await client.request('POST', `/dashboard/products/${productId}/archive`, {});
    const foreign = await client.request('POST', `/dashboard/products/${productId}/archive`, { _csrf: otherToken });
    const token = csrfOf((await client.get('/dashboard')).text);
    const crossSite = await client.request('POST', `/dashboard/products/${productId}/archive`, { _csrf: token }, { 'sec-fetch-site': 'cross-site' });
    expect([missing.status, foreign.status, crossSite.status]).toEqual([403, 403, 403]);
    expect(missing.text).toContain('Form refused');
    expect((await Product.findByPk(productId))!.archived).toBe(false);

    // The sign-in form has its own token (login CSRF).
    const login = await new DashboardClient(t.api.baseUrl).request('POST', '/dashboard/login', { email: 'x@example.com', password: 'whatever-password' });
    expect(login.status).toBe(403);

    const ok = await client.request('POST', `/dashboard/products/${productId}/archive`, { _csrf: token });
    expect(ok).toMatchObject({ status: 303, location: '/dashboard/products?notice=archived' });
  });
});

describe('dashboard workspaces', () => {
  it('shows one workspace’s data only; another workspace’s ids are 404 and unchanged; a member of two switches', async () => {
    const { ws, user, client } = await signedIn();
    const other = await t.ctx.createWorkspace();
    const mine = await namedProduct(ws, 'Mine only');
    const theirs = await namedProduct(other, 'Theirs only');
    const theirDelivery = await insertDelivery(t.ctx.sequelize, other, theirs);
    const { row: theirEndpoint } = await insertWebhookEndpoint(other);
    const theirPending = await insertCheckoutSessionRow(t.ctx.sequelize, other, { status: 'pending_review' });
    const theirCompleted = await insertCheckoutSessionRow(t.ctx.sequelize, other, { status: 'completed' });
    const theirKey = (await ApiKey.findOne({ where: { accountId: other.accountId, environment: 'test', access: 'secret' } }))!;

    const products = await client.get('/dashboard/products');
    expect(products.text).toContain('Mine only');
    expect(products.text).not.toContain('Theirs only');
    // Every dashboard route that takes an id: another workspace's is the same 404 as a missing one, and changes nothing.
    for (const path of [
      `/dashboard/products/${theirs}/archive`,
      `/dashboard/products/${theirs}/restore`,
      `/dashboard/deliveries/${theirDelivery.id}/resend`,
      `/dashboard/developers/webhooks/${theirEndpoint.id}/test`,
      `/dashboard/developers/api-keys/${theirKey.id}/rotate`,
      `/dashboard/developers/api-keys/${theirKey.id}/revoke`,
      `/dashboard/checkouts/${theirPending.id}/confirm`,
      `/dashboard/checkouts/${theirCompleted.id}/refund`,
    ]) {
      const refused = await client.post(path, path.endsWith('/refund') ? { amount: '1', reason: '' } : {});
      expect({ path, status: refused.status }).toEqual({ path, status: 404 });
      expect(refused.text).toContain('belongs to another workspace');
    }
    for (const path of [`/dashboard/checkouts/${theirPending.id}`, `/dashboard/checkouts/${theirCompleted.id}`]) {
      const refused = await client.get(path);
      expect({ path, status: refused.status }).toEqual({ path, status: 404 });
      expect(refused.text).not.toContain(theirCompleted.customerEmail ?? 'buyer@example.com');
    }
    expect((await Product.findByPk(theirs))!.archived).toBe(false);
    expect((await ApiKey.findByPk(theirKey.id))!.get()).toMatchObject({ revokedAt: null, expiresAt: null });
    expect((await CheckoutSession.findByPk(theirPending.id))!.status).toBe('pending_review');
    expect(await CheckoutRefund.count({ where: { accountId: other.accountId } })).toBe(0);
    expect(await EmailMessage.count({ where: { accountId: other.accountId } })).toBe(0);
    expect((await client.post('/dashboard/workspace', { accountId: other.accountId })).status).toBe(404);
    expect((await client.get('/dashboard')).text).toContain(ws.accountId);

    // Made a member of the other workspace, the user switches to it and sees its data, not the first one's.
    await t.ctx.sequelize.query('INSERT INTO memberships (user_id, account_id, role) VALUES (:userId, :accountId, :role)', {
      replacements: { userId: user.userId, accountId: other.accountId, role: 'member' },
    });
    const overview = await client.get('/dashboard');
    expect(overview.text).toContain('id="workspace-switch"');
    expect((await client.post('/dashboard/workspace', { accountId: other.accountId })).status).toBe(303);
    const switched = await client.get('/dashboard/products');
    expect(switched.text).toContain('Theirs only');
    expect(switched.text).not.toContain('Mine only');
    expect(switched.text).toContain(other.accountId);
    expect(mine).toMatch(/^prod_/);
  });
});

describe('dashboard operations', () => {
  it('archives and restores a product through the products service: unarchived, unpublished, audited as the user', async () => {
    const { ws, user, client } = await signedIn();
    const productId = await namedProduct(ws, 'Field guide', true);
    expect((await client.post(`/dashboard/products/${productId}/archive`)).status).toBe(303);
    expect((await Product.findByPk(productId))!.get()).toMatchObject({ archived: true, published: false });
    expect((await client.get('/dashboard/products')).text).not.toContain('Field guide');
    const archived = await client.get('/dashboard/products?archived=1');
    expect(archived.text).toContain('Field guide');
    expect(archived.text).toContain('Restore Field guide');

    const restored = await client.post(`/dashboard/products/${productId}/restore`);
    expect(restored).toMatchObject({ status: 303, location: '/dashboard/products?notice=restored' });
    expect((await Product.findByPk(productId))!.get()).toMatchObject({ archived: false, published: false });
    expect((await client.get(restored.location!)).text).toContain('Product restored.');
    const entry = await AuditLog.findOne({ where: { accountId: ws.accountId, action: 'product.restored', targetId: productId } });
    expect(entry).toMatchObject({ actorUserId: user.userId, actorApiKeyId: null });
    // Not archived: nothing to restore.
    expect((await client.post(`/dashboard/products/${productId}/restore`)).status).toBe(404);
    // Still no restore through the API (document 1: dashboard only).
    const api = await http(t.api.baseUrl, 'POST', `/api/v1/storefront/products/${productId}/restore`, { key: ws.secretKey });
    expect(api.status).toBe(404);
  });

  it('refuses a restore past the plan’s product cap, as a create would be, and restores nothing', async () => {
    const { ws, client } = await signedIn(t.ctx.createWorkspace({ plan: 'free' }));
    const archived = await insertProduct(t.ctx.sequelize, ws, { archived: true });
    for (let i = 0; i < 10; i += 1) await insertProduct(t.ctx.sequelize, ws);
    const refused = await client.post(`/dashboard/products/${archived}/restore`);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('Plan limit reached');
    expect(refused.text).toContain('The free plan allows 10 products');
    expect((await Product.findByPk(archived))!.archived).toBe(true);
  });

  it('mints a key shown once and revokes it, as the API does', async () => {
    const { ws, client } = await signedIn();
    const refused = await client.post('/dashboard/developers/api-keys', { name: '', access: 'secret' });
    expect(refused.status).toBe(400);
    expect(refused.text).toMatch(/id="key-name-error"/);
    const minted = await client.post('/dashboard/developers/api-keys', { name: 'Zapier', access: 'secret' });
    expect(minted.status).toBe(201);
    const value = /id="new-key-value">(sk_test_\w+)</.exec(minted.text)![1]!;
    expect((await http(t.api.baseUrl, 'GET', '/api/v1/account/api-keys', { key: value })).status).toBe(200);
    const page = await client.get('/dashboard/developers/api-keys');
    expect(page.text).not.toContain(value);
    const id = /action="\/dashboard\/developers\/api-keys\/(key_\w+)\/revoke"[^]*?Revoke Zapier/.exec(page.text)![1]!;
    expect((await client.post(`/dashboard/developers/api-keys/${id}/revoke`)).status).toBe(303);
    expect((await http(t.api.baseUrl, 'GET', '/api/v1/account/api-keys', { key: value })).status).toBe(401);
    expect(ws.secretKey).toMatch(/^sk_test_/);
  });

  it('rotates a key: a new value at once, the old one still working for 24 hours, the owner e-mailed exactly once', async () => {
    const smtp = await startTestSmtpServer();
    const mailer = createMailer({ SMTP_URL: smtp.url, EMAIL_FROM: t.ctx.config.EMAIL_FROM });
    const worker = await startTestWorker(t.ctx.sequelize, TASK_QUEUE, { config: t.ctx.config, mailer });
    try {
      const ws = await t.ctx.createWorkspace();
      const owner = await createDashboardUser(t.ctx.sequelize, ws.accountId, 'owner');
      // A member rotates; the owner is the one told.
      const member = await createDashboardUser(t.ctx.sequelize, ws.accountId, 'member');
      const client = new DashboardClient(t.api.baseUrl);
      await client.signIn(member.email, member.password);
      const minted = await client.post('/dashboard/developers/api-keys', { name: 'Warehouse sync', access: 'secret' });
      const oldValue = /id="new-key-value">(sk_test_\w+)</.exec(minted.text)![1]!;
      const oldId = /action="\/dashboard\/developers\/api-keys\/(key_\w+)\/rotate"[^]*?Rotate Warehouse sync/.exec(minted.text)![1]!;

      const before = Date.now();
      const rotated = await client.post(`/dashboard/developers/api-keys/${oldId}/rotate`, {}, '/dashboard/developers/api-keys');
      const after = Date.now();
      expect(rotated.status).toBe(201);
      expect(rotated.text).toContain('Key “Warehouse sync” rotated');
      const newValue = /id="new-key-value">(sk_test_\w+)</.exec(rotated.text)![1]!;
      expect(newValue).not.toBe(oldValue);

      // Both values work now; the old one until 24 hours after the rotation (API_KEY_ROTATION_OVERLAP's default).
      for (const value of [oldValue, newValue]) expect((await http(t.api.baseUrl, 'GET', '/api/v1/account/api-keys', { key: value })).status).toBe(200);
      const old = (await ApiKey.findByPk(oldId))!;
      expect(old.expiresAt!.getTime()).toBeGreaterThanOrEqual(before + 86_400_000);
      expect(old.expiresAt!.getTime()).toBeLessThanOrEqual(after + 86_400_000);
      const replacement = (await ApiKey.findByPk(old.replacedByKeyId!))!;
      expect(replacement.get()).toMatchObject({ name: 'Warehouse sync', environment: 'test', access: 'secret', expiresAt: null, revokedAt: null });
      const listed = await http<{ data: { id: string; expiresAt: string | null; replacedBy: string | null }[] }>(t.api.baseUrl, 'GET', '/api/v1/account/api-keys', { key: newValue });
      expect(listed.body.data.find((k) => k.id === oldId)).toMatchObject({ expiresAt: old.expiresAt!.toISOString(), replacedBy: replacement.id });
      const page = await client.get('/dashboard/developers/api-keys');
      expect(page.text).not.toContain(newValue);
      expect(page.text).toMatch(/Rotated<\/span><div class="small">works until /);
      expect(await AuditLog.findOne({ where: { accountId: ws.accountId, action: 'api_key.rotated', targetId: oldId } })).toMatchObject({ actorUserId: member.userId });

      // Rotated once: the old key again is refused (its deadline never moves); the replacement is the one to rotate.
      const again = await client.post(`/dashboard/developers/api-keys/${oldId}/rotate`, {}, '/dashboard/developers/api-keys');
      expect(again.status).toBe(409);
      expect(again.text).toContain('rotate the key that replaced it');
      expect((await ApiKey.findByPk(oldId))!.expiresAt).toEqual(old.expiresAt);

      // The owner's notice arrives at the SMTP server, once, naming the key but never its value.
      await waitFor(async () => smtp.received.some((m) => m.parsed.subject?.includes('Warehouse sync')), { timeoutMs: 30_000 });
      const notices = smtp.received.filter((m) => m.parsed.subject?.includes('Warehouse sync'));
      expect(notices).toHaveLength(1);
      const notice = notices[0]!;
      expect(notice.envelope.to).toEqual([owner.email]);
      expect(notice.parsed.subject).toMatch(/^API key “Warehouse sync” of Workspace \S+ was rotated$/);
      expect(notice.parsed.text).toContain(`(sk_test_…${oldValue.slice(-4)})`);
      expect(notice.parsed.text).toContain(`rotated by ${member.email}`);
      expect(notice.parsed.text).toContain('/dashboard/developers/api-keys');
      for (const value of [oldValue, newValue]) expect(notice.raw).not.toContain(value);
      const rows = await EmailMessage.findAll({ where: { accountId: ws.accountId } });
      expect(rows.map((r) => [r.kind, r.businessKey, r.status])).toEqual([['api_key_rotated', `api_key_rotated:${oldId}`, 'sent']]);

      // Revoking the old key during the overlap is immediate, as always; the replacement keeps working.
      expect((await client.post(`/dashboard/developers/api-keys/${oldId}/revoke`, {}, '/dashboard/developers/api-keys')).status).toBe(303);
      expect((await http(t.api.baseUrl, 'GET', '/api/v1/account/api-keys', { key: oldValue })).status).toBe(401);
      expect((await http(t.api.baseUrl, 'GET', '/api/v1/account/api-keys', { key: newValue })).status).toBe(200);
    } finally {
      await worker.stop();
      mailer.close();
      await smtp.close();
    }
  });

  it('refuses the old value of a rotated key from its deadline on', async () => {
    const short = await t.ctx.startApi({ API_KEY_ROTATION_OVERLAP: '3s', DASHBOARD_SIGNIN_LIMIT_PER_MINUTE: '100000', TEMPORAL_TASK_QUEUE: TASK_QUEUE });
    const ws = await t.ctx.createWorkspace();
    const user = await createDashboardUser(t.ctx.sequelize, ws.accountId, 'member');
    const client = new DashboardClient(short.baseUrl);
    expect((await client.signIn(user.email, user.password)).status).toBe(303);
    const minted = await client.post('/dashboard/developers/api-keys', { name: 'Short overlap', access: 'secret' });
    const oldValue = /id="new-key-value">(sk_test_\w+)</.exec(minted.text)![1]!;
    const oldId = /action="\/dashboard\/developers\/api-keys\/(key_\w+)\/rotate"/.exec(minted.text)![1]!;
    const rotated = await client.post(`/dashboard/developers/api-keys/${oldId}/rotate`, {}, '/dashboard/developers/api-keys');
    const newValue = /id="new-key-value">(sk_test_\w+)</.exec(rotated.text)![1]!;
    const deadline = (await ApiKey.findByPk(oldId))!.expiresAt!.getTime();
    const status = async (value: string) => (await http(short.baseUrl, 'GET', '/api/v1/account/api-keys', { key: value })).status;
    expect(await status(oldValue)).toBe(200);
    await new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now())));
    expect(await status(oldValue)).toBe(401);
    expect(await status(newValue)).toBe(200);
  });

  it('sends a synthetic test event to an endpoint', async () => {
    const { ws, client } = await signedIn();
    const { row } = await insertWebhookEndpoint(ws);
    expect((await client.get('/dashboard/developers/webhooks')).text).toContain(row.url);
    const sent = await client.post(`/dashboard/developers/webhooks/${row.id}/test`);
    expect(sent).toMatchObject({ status: 303, location: '/dashboard/developers/webhooks?notice=test-sent' });
  });

  it('resends the delivery e-mail: a new message each time, through the e-mail module, arriving at the SMTP server', async () => {
    const smtp = await startTestSmtpServer();
    const mailer = createMailer({ SMTP_URL: smtp.url, EMAIL_FROM: t.ctx.config.EMAIL_FROM });
    const worker = await startTestWorker(t.ctx.sequelize, TASK_QUEUE, { config: t.ctx.config, mailer });
    try {
      const { ws, client } = await signedIn();
      const productId = await namedProduct(ws, 'Resent guide');
      const delivery = await insertDelivery(t.ctx.sequelize, ws, productId, { kind: 'license' });
      expect((await client.get('/dashboard/deliveries')).text).toContain(delivery.id);
      for (const expected of [1, 2]) {
        const resent = await client.post(`/dashboard/deliveries/${delivery.id}/resend`, {}, '/dashboard/deliveries');
        expect(resent).toMatchObject({ status: 303, location: '/dashboard/deliveries?notice=resent' });
        await waitFor(async () => smtp.received.filter((m) => m.envelope.to.includes('buyer@example.com') && m.parsed.text?.includes('TEST-AAAA-BBBB-CCCC-DDDD')).length >= expected, { timeoutMs: 30_000 });
      }
      const messages = smtp.received.filter((m) => m.parsed.text?.includes('TEST-AAAA-BBBB-CCCC-DDDD'));
      expect(messages).toHaveLength(2);
      expect(new Set(messages.map((m) => m.parsed.messageId)).size).toBe(2);
      const rows = await EmailMessage.findAll({ where: { accountId: ws.accountId } });
      expect(rows.map((r) => [r.kind, r.status, r.businessKey.startsWith(`checkout_receipt:${delivery.checkoutSessionId}:resend:`)])).toEqual([
        ['checkout_receipt', 'sent', true],
        ['checkout_receipt', 'sent', true],
      ]);
    } finally {
      await worker.stop();
      mailer.close();
      await smtp.close();
    }
  });
});

describe('dashboard sales', () => {
  it('shows balances as money and the last 30 days of sales as a chart drawn on the server, with no script', async () => {
    const { ws, client } = await signedIn();
    const empty = await client.get('/dashboard');
    expect(empty.text).toMatch(/<dt>Available \(IDR\)<\/dt><dd>IDR(&nbsp;|\s| )0<\/dd>/);
    expect(empty.text).toContain('<dt>Pending (USD)</dt><dd>$0.00</dd>');
    expect(empty.text).toContain('No completed checkouts in the last 30 days');

    const productId = await namedProduct(ws, 'Chart guide');
    await insertCheckoutSessionRow(t.ctx.sequelize, ws, { status: 'completed', lineItems: [lineOf(productId, 2_500)] });
    await insertCheckoutSessionRow(t.ctx.sequelize, ws, { status: 'completed', lineItems: [lineOf(productId, 1_500)] });
    // Older than the window: not charted.
    const old = await insertCheckoutSessionRow(t.ctx.sequelize, ws, { status: 'completed', lineItems: [lineOf(productId, 99_900)] });
    await CheckoutSession.update({ completedAt: new Date(Date.now() - 31 * 86_400_000) }, { where: { id: old.id } });
    await insertCheckoutSessionRow(t.ctx.sequelize, ws, { status: 'pending_review', lineItems: [lineOf(productId, 7_700)] });

    const overview = await client.get('/dashboard');
    expect(overview.headers.get('content-security-policy')).toContain("script-src 'none'");
    expect(overview.text).not.toMatch(/<script|\son[a-z]+=|style=/i);
    const svg = /<svg class="chart"[^]*?<\/svg>/.exec(overview.text)![0];
    expect(svg).toContain('Sales per day over the last 30 days in USD: $40.00 from 2 sales; the best day $40.00.');
    expect(svg.match(/<rect /g)).toHaveLength(30);
    const today = new Intl.DateTimeFormat('en', { month: 'short', day: 'numeric', timeZone: 'UTC' }).format(new Date());
    expect(svg).toContain(`<title>${today}: $40.00, 2 sales</title>`);
    expect(svg).not.toContain('$999.00');
  });

  it('lists checkouts by status and shows one with its lines, deliveries and refunds; confirms a pending one and refunds through the checkout service', async () => {
    const { ws, user, client } = await signedIn();
    const productId = await namedProduct(ws, 'Batik pattern pack');
    const completed = await insertCheckoutSessionRow(t.ctx.sequelize, ws, { status: 'completed', lineItems: [lineOf(productId, 1_250, 2)], customerEmail: 'ana@buyer.example' });
    const delivery = await insertDelivery(t.ctx.sequelize, ws, productId, { session: completed, kind: 'license' });
    const pending = await insertCheckoutSessionRow(t.ctx.sequelize, ws, { status: 'pending_review', lineItems: [lineOf(productId, 4_000)] });

    const all = await client.get('/dashboard/checkouts');
    expect(all.text).toContain(completed.id);
    expect(all.text).toContain(pending.id);
    expect(all.text).toMatch(/<label for="status-filter">Status<\/label>/);
    const filtered = await client.get('/dashboard/checkouts?status=pending_review');
    expect(filtered.text).toContain(pending.id);
    expect(filtered.text).not.toContain(completed.id);
    expect(filtered.text).toContain('<option value="pending_review" selected>');

    const detail = await client.get(`/dashboard/checkouts/${completed.id}`);
    expect(detail.status).toBe(200);
    expect(detail.text).toContain('ana@buyer.example');
    expect(detail.text).toMatch(/Line item<\/td><td class="num">2<\/td><td class="num hide-narrow">\$12\.50<\/td><td class="num">\$25\.00<\/td>/);
    expect(detail.text).toContain(delivery.id);
    expect(detail.text).toContain('No refunds.');
    expect(detail.text).not.toContain('Confirm payment');

    // A partial refund in whole units, one past what is left (beside the field, nothing written), then the rest.
    const from = `/dashboard/checkouts/${completed.id}`;
    expect(detail.text).toContain('<input type="hidden" name="refundedBefore" value="0">');
    const bad = await client.post(`${from}/refund`, { amount: '12.345', reason: '', refundedBefore: '0' }, from);
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/id="refund-amount-error">Type an amount like 25\.00</);
    expect((await client.post(`${from}/refund`, { amount: '1', reason: '' }, from)).status).toBe(400);
    expect(await CheckoutRefund.count({ where: { checkoutSessionId: completed.id } })).toBe(0);
    const partial = await client.post(`${from}/refund`, { amount: '10.00', reason: 'Damaged file', refundedBefore: '0' }, from);
    expect(partial).toMatchObject({ status: 303, location: `${from}?notice=refunded` });
    // The same form sent again (a double click, a resubmitted page) refunds nothing more.
    const resent = await client.post(`${from}/refund`, { amount: '10.00', reason: 'Damaged file', refundedBefore: '0' }, from);
    expect(resent.status).toBe(409);
    expect(resent.text).toMatch(/id="refund-amount-error">This checkout session was refunded since the form was opened; nothing was refunded now/);
    expect(await CheckoutRefund.count({ where: { checkoutSessionId: completed.id } })).toBe(1);
    const tooMuch = await client.post(`${from}/refund`, { amount: '20', reason: '', refundedBefore: '1000' }, from);
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.text).toMatch(/id="refund-amount-error">amount: at most 1500/);
    expect((await client.post(`${from}/refund`, { amount: '', reason: '', refundedBefore: '1000' }, from)).status).toBe(303);
    const refunds = await CheckoutRefund.findAll({ where: { checkoutSessionId: completed.id }, order: [['createdAt', 'ASC']] });
    expect(refunds.map((r) => [r.amount, r.reason])).toEqual([[1_000, 'Damaged file'], [1_500, null]]);
    const refunded = await client.get(from);
    expect(refunded.text).toContain('Damaged file');
    expect(refunded.text).toContain('<dt>Refunded</dt><dd>$25.00</dd>');
    expect(refunded.text).not.toContain('id="refund-amount"');
    expect(await AuditLog.count({ where: { accountId: ws.accountId, action: 'checkout_session.refunded', actorUserId: user.userId } })).toBe(2);

    // Confirming the pending transfer completes the session, as POST /confirm does; confirming again is refused.
    const pendingPage = `/dashboard/checkouts/${pending.id}`;
    expect((await client.get(pendingPage)).text).toContain('Confirm payment');
    const confirmed = await client.post(`${pendingPage}/confirm`, {}, pendingPage);
    expect(confirmed).toMatchObject({ status: 303, location: `${pendingPage}?notice=confirmed` });
    expect((await CheckoutSession.findByPk(pending.id))!.status).toBe('completed');
    expect((await client.get(confirmed.location!)).text).toContain('Payment confirmed.');
    const again = await client.post(`${pendingPage}/confirm`, {}, pendingPage);
    expect(again.status).toBe(409);
  });
});

