import { createHmac } from 'node:crypto';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { verifyWebhookSignature as exported } from '../../index';
import { ConfigError, loadConfig } from '../../lib/config';
import { generateWebhookSecret, signWebhookPayload, verifyWebhookSignature } from '../../lib/webhooks/signature';
import { createWebhookAgent, postWebhook } from '../../lib/webhooks/send';
import { checkTargetUrl, isPublicAddress } from '../../lib/webhooks/targets';
import { createTestCertificates, startHttpsReceiver, type HttpsReceiver, type TestCertificates } from '../helpers/https-receiver';

describe('verifyWebhookSignature', () => {
  const secret = generateWebhookSecret();
  const body = JSON.stringify({ id: 'evt_01JD4X7V1QZ8N6Y3K2M5P9R0TS', type: 'checkout.completed', data: { amount: 10 } });
  const now = 1_800_000_000;
  const header = signWebhookPayload(body, secret, now);

  it('is the package export', () => {
    expect(exported).toBe(verifyWebhookSignature);
  });

  it('accepts the signed raw body, as a string or as bytes, and reports the timestamp', () => {
    expect(header).toMatch(/^t=1800000000,v1=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature(body, header, secret, { now })).toEqual({ valid: true, timestamp: now });
    expect(verifyWebhookSignature(Buffer.from(body), header, secret, { now })).toEqual({ valid: true, timestamp: now });
  });

  it('computes v1 as hex HMAC-SHA256 of "<t>.<raw body>" keyed by the whole whsec_ secret', () => {
    const expected = createHmac('sha256', secret).update(`${now}.${body}`).digest('hex');
    expect(header).toBe(`t=${now},v1=${expected}`);
  });

  it.each([
    ['a tampered body', body.replace('10', '11'), header, secret, 'signature_mismatch'],
    ['a re-serialised body', JSON.stringify(JSON.parse(body), null, 1), header, secret, 'signature_mismatch'],
    ['another secret', body, header, generateWebhookSecret(), 'signature_mismatch'],
    ['a forged v1', body, `t=${now},v1=${'0'.repeat(64)}`, secret, 'signature_mismatch'],
    ['a truncated v1', body, header.slice(0, -2), secret, 'signature_mismatch'],
    ['a moved timestamp', body, header.replace(`t=${now}`, `t=${now + 1}`), secret, 'signature_mismatch'],
    ['no header', body, undefined, secret, 'missing_header'],
    ['a header without v1', body, `t=${now}`, secret, 'malformed_header'],
    ['a header without t', body, header.split(',')[1], secret, 'malformed_header'],
    ['garbage', body, 'nonsense', secret, 'malformed_header'],
  ])('refuses %s', (_what, raw, sig, key, reason) => {
    expect(verifyWebhookSignature(raw as string, sig as string | undefined, key as string, { now })).toEqual({ valid: false, reason });
  });

  it('refuses a timestamp more than 300 s away (either direction) and accepts one within', () => {
    expect(verifyWebhookSignature(body, header, secret, { now: now + 300 })).toMatchObject({ valid: true });
    expect(verifyWebhookSignature(body, header, secret, { now: now - 300 })).toMatchObject({ valid: true });
    expect(verifyWebhookSignature(body, header, secret, { now: now + 301 })).toEqual({ valid: false, reason: 'timestamp_outside_tolerance' });
    expect(verifyWebhookSignature(body, header, secret, { now: now - 301 })).toEqual({ valid: false, reason: 'timestamp_outside_tolerance' });
    expect(verifyWebhookSignature(body, header, secret, { now: now + 301, toleranceSeconds: 600 })).toMatchObject({ valid: true });
    // Against the real clock: a signature made 301 s ago is stale.
    const old = Math.floor(Date.now() / 1000) - 301;
    expect(verifyWebhookSignature(body, signWebhookPayload(body, secret, old), secret)).toEqual({ valid: false, reason: 'timestamp_outside_tolerance' });
  });

  it('accepts any matching v1 entry and ignores unknown schemes', () => {
    const v1 = header.split(',')[1]!;
    expect(verifyWebhookSignature(body, `t=${now},v1=${'ab'.repeat(32)},${v1},v2=zzz`, secret, { now })).toMatchObject({ valid: true });
  });
});

describe('address policy', () => {
  it.each([
    ['93.184.216.34', true],
    ['8.8.8.8', true],
    ['2606:4700:4700::1111', true],
    ['127.0.0.1', false],
    ['127.8.8.8', false],
    ['10.0.0.1', false],
    ['172.16.5.4', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['255.255.255.255', false],
    ['224.0.0.1', false],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fd12:3456::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['::ffff:8.8.8.8', true],
    ['not-an-ip', false],
  ])('%s public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  it('checks URLs at registration: https only, IP literals judged, names resolved, unresolvable names accepted', async () => {
    expect(await checkTargetUrl('http://8.8.8.8/', false)).toEqual({ ok: false, reason: 'url must use https' });
    expect(await checkTargetUrl('https://8.8.8.8/', false)).toEqual({ ok: true });
    expect(await checkTargetUrl('https://[::1]:8443/x', false)).toMatchObject({ ok: false });
    expect(await checkTargetUrl('https://localhost/x', false)).toMatchObject({ ok: false, reason: expect.stringContaining('127.0.0.1') });
    expect(await checkTargetUrl('https://no-such-host.invalid/x', false)).toEqual({ ok: true });
    expect(await checkTargetUrl('https://localhost/x', true)).toEqual({ ok: true });
    expect(await checkTargetUrl('http://localhost/x', true)).toEqual({ ok: false, reason: 'url must use https' });
  });
});

describe('configuration', () => {
  it('takes the retry schedule and the system endpoint targets from the environment, https only', () => {
    const config = loadConfig({ WEBHOOK_RETRY_SCHEDULE: '2s,1m', FULFILLMENT_SYNC_URL: 'https://partner.example.com/sync' });
    expect(config.WEBHOOK_RETRY_SCHEDULE).toEqual([2_000, 60_000]);
    expect(config.FULFILLMENT_SYNC_URL).toBe('https://partner.example.com/sync');
    expect(config.DISCOUNT_SYNC_URL).toBeUndefined();
    for (const bad of [{ DISCOUNT_SYNC_URL: 'http://discounts.example.com/' }, { FULFILLMENT_SYNC_URL: 'not a url' }, { WEBHOOK_RETRY_SCHEDULE: '1m,soon' }]) {
      expect(() => loadConfig(bad)).toThrow(ConfigError);
      expect(() => loadConfig(bad)).toThrow(Object.keys(bad)[0]!);
    }
  });
});

describe('postWebhook (real HTTPS on loopback)', () => {
  let certs: TestCertificates;
  let receiver: HttpsReceiver;
  let agent: ReturnType<typeof createWebhookAgent>;
  const post = (url: string, options: { allowPrivate?: boolean; timeoutMs?: number; agent?: ReturnType<typeof createWebhookAgent> } = {}) =>
    postWebhook(
      { url, body: '{"id":"evt_x"}', headers: { 'Content-Type': 'application/json' } },
      { agent: options.agent ?? agent, allowPrivate: options.allowPrivate ?? true, timeoutMs: options.timeoutMs ?? 5_000 },
    );

  beforeAll(async () => {
    certs = await createTestCertificates();
    receiver = await startHttpsReceiver(certs);
    agent = createWebhookAgent({ ca: certs.caCert });
  });
  afterAll(async () => {
    await receiver.close();
    agent.destroy();
  });

  it.each([200, 201, 202, 204, 299])('treats %s as success', async (status) => {
    receiver.respond(() => status);
    expect(await post(receiver.url('/ok'))).toMatchObject({ ok: true, statusCode: status, error: null });
  });

  it.each([400, 404, 410, 429, 500, 503])('treats %s as failure', async (status) => {
    receiver.respond(() => status);
    expect(await post(receiver.url('/fail'))).toMatchObject({ ok: false, statusCode: status, error: `HTTP ${status}` });
  });

  it('does not follow redirects', async () => {
    receiver.respond((req) => (req.path === '/moved' ? { status: 307, headers: { location: receiver.url('/target') } } : 200));
    const result = await post(receiver.url('/moved'));
    expect(result).toMatchObject({ ok: false, statusCode: 307, error: 'HTTP 307 (redirects are not followed)' });
    expect(receiver.received.filter((r) => r.path === '/target')).toHaveLength(0);
  });

  it('fails on a timeout', async () => {
    receiver.respond(() => ({ status: 200, delayMs: 1_500 }));
    const result = await post(receiver.url('/slow'), { timeoutMs: 300 });
    expect(result).toMatchObject({ ok: false, statusCode: null, error: 'timed out after 300 ms' });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
  });

  it('fails on an untrusted certificate', async () => {
    receiver.respond(() => 200);
    const untrusting = createWebhookAgent();
    const result = await post(receiver.url('/tls'), { agent: untrusting });
    untrusting.destroy();
    expect(result).toMatchObject({ ok: false, statusCode: null, error: expect.stringMatching(/^TLS error/) });
  });

  it('fails on a refused connection', async () => {
    const server = createServer({ cert: certs.cert, key: certs.key });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    await new Promise((r) => server.close(r));
    expect(await post(`https://127.0.0.1:${port}/`)).toMatchObject({ ok: false, statusCode: null, error: 'connection refused' });
  });

  it('refuses private targets at send time unless allowed: IP literals, and names through the resolver', async () => {
    const before = receiver.received.length;
    const literal = await post(receiver.url('/private'), { allowPrivate: false });
    expect(literal).toMatchObject({ ok: false, statusCode: null, error: expect.stringMatching(/^refused: 127\.0\.0\.1/) });
    const named = await post(`https://localhost:${receiver.port}/private`, { allowPrivate: false });
    expect(named).toMatchObject({ ok: false, statusCode: null, error: expect.stringMatching(/^refused: localhost resolves to (127\.0\.0\.1|::1)/) });
    expect(receiver.received.length).toBe(before);
    receiver.respond(() => 200);
    expect(await post(`https://localhost:${receiver.port}/private`, { allowPrivate: true })).toMatchObject({ ok: true });
  });
});
