import { Account, AuditLog, CustomDomain } from '../../db/models';
import { http, useTestApi } from '../helpers/context';
import { expectError } from '../helpers/expect';

const t = useTestApi();
const PATH = '/api/v1/account/storefront';

async function snapshot(accountId: string) {
  const account = (await Account.findByPk(accountId))!.get({ plain: true }) as Record<string, unknown>;
  const domains = (await CustomDomain.findAll({ where: { accountId } })).map((d) => d.hostname).sort();
  return { account, domains };
}

describe('/v1/account/storefront', () => {
  it('answers the settings of a fresh workspace, empty but complete', async () => {
    const ws = await t.ctx.createWorkspace();
    const res = await http(t.api.baseUrl, 'GET', PATH, { key: ws.secretKey });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      accountId: ws.accountId,
      name: expect.any(String),
      slug: ws.slug,
      description: null,
      brandColor: null,
      brandLogo: null,
      brandBanner: null,
      pixels: { metaPixelId: null, googleTagId: null, tiktokPixelId: null },
      customDomains: [],
      manualPayment: {
        bankName: null,
        accountNumber: null,
        accountHolder: null,
        instructions: null,
        qris: { imageUrl: null, instructions: null },
        ewallet: { instructions: null },
        intlWallet: { instructions: null },
      },
      updatedAt: expect.any(String),
    });
  });

  it('updates the fields sent, keeps the others, and is the same for both environments', async () => {
    const ws = await t.ctx.createWorkspace();
    const body = {
      name: 'Batik Sari',
      description: 'Hand-made batik',
      brandColor: '#1a2B3c',
      brandLogo: 'https://cdn.example.com/logo.png',
      metaPixelId: '123456789012345',
      googleTagId: 'G-ABC123',
      customDomains: ['Shop.Example.com', 'shop.example.com', 'batik.example.org'],
      manualPayment: { bankName: 'BCA', accountNumber: '1234567890', accountHolder: 'Sari', instructions: 'Transfer within 24 hours' },
    };
    const res = await http(t.api.baseUrl, 'PATCH', PATH, { key: ws.secretKey, body });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      name: 'Batik Sari',
      brandColor: '#1a2B3c',
      brandBanner: null,
      pixels: { metaPixelId: '123456789012345', googleTagId: 'G-ABC123', tiktokPixelId: null },
      customDomains: ['batik.example.org', 'shop.example.com'],
      manualPayment: body.manualPayment,
    });
    const live = await http(t.api.baseUrl, 'GET', PATH, { key: ws.liveSecretKey });
    expect(live.body.data).toEqual(res.body.data);

    const partial = await http(t.api.baseUrl, 'PATCH', PATH, { key: ws.secretKey, body: { brandColor: '', manualPayment: { instructions: null } } });
    expect(partial.body.data).toMatchObject({
      name: 'Batik Sari',
      brandColor: null,
      customDomains: ['batik.example.org', 'shop.example.com'],
      manualPayment: { bankName: 'BCA', accountNumber: '1234567890', accountHolder: 'Sari', instructions: null },
    });
    const entries = await AuditLog.count({ where: { accountId: ws.accountId, action: 'storefront_settings.updated' } });
    expect(entries).toBe(2);
  });

  it('keeps instructions per local-mode method: QRIS image and text, the wallets’ text, each replaced or cleared on its own', async () => {
    const ws = await t.ctx.createWorkspace();
    const manualPayment = {
      accountNumber: '1234567890',
      qris: { imageUrl: 'https://cdn.example.com/qris.png', instructions: 'Scan and pay' },
      ewallet: { instructions: 'DANA 0812-000-111' },
      intlWallet: { instructions: 'PayPal pay@example.com' },
    };
    const res = await http<{ data: { manualPayment: unknown } }>(t.api.baseUrl, 'PATCH', PATH, { key: ws.secretKey, body: { manualPayment } });
    expect(res.status).toBe(200);
    expect(res.body.data.manualPayment).toEqual({ bankName: null, accountHolder: null, instructions: null, ...manualPayment });
    expect(await Account.findByPk(ws.accountId)).toMatchObject({
      manualAccountNumber: '1234567890',
      manualQrisImageUrl: 'https://cdn.example.com/qris.png',
      manualQrisInstructions: 'Scan and pay',
      manualEwalletInstructions: 'DANA 0812-000-111',
      manualIntlWalletInstructions: 'PayPal pay@example.com',
    });

    const cleared = await http<{ data: { manualPayment: unknown } }>(t.api.baseUrl, 'PATCH', PATH, { key: ws.secretKey, body: { manualPayment: { qris: { imageUrl: null }, ewallet: { instructions: '' } } } });
    expect(cleared.body.data.manualPayment).toEqual({
      bankName: null,
      accountNumber: '1234567890',
      accountHolder: null,
      instructions: null,
      qris: { imageUrl: null, instructions: 'Scan and pay' },
      ewallet: { instructions: null },
      intlWallet: { instructions: 'PayPal pay@example.com' },
    });
  });

  it('replaces the custom domains whole and frees removed ones for other workspaces', async () => {
    const a = await t.ctx.createWorkspace();
    const b = await t.ctx.createWorkspace();
    await http(t.api.baseUrl, 'PATCH', PATH, { key: a.secretKey, body: { customDomains: ['one.example.com', 'two.example.com'] } });
    const taken = await http(t.api.baseUrl, 'PATCH', PATH, { key: b.secretKey, body: { name: 'B', customDomains: ['fresh.example.com', 'two.example.com'] } });
    expectError(taken, 409, 'VALIDATION_ERROR');
    expect((await snapshot(b.accountId)).domains).toEqual([]);
    expect((await Account.findByPk(b.accountId))!.name).not.toBe('B');

    await http(t.api.baseUrl, 'PATCH', PATH, { key: a.secretKey, body: { customDomains: ['one.example.com'] } });
    const now = await http(t.api.baseUrl, 'PATCH', PATH, { key: b.secretKey, body: { customDomains: ['two.example.com'] } });
    expect(now.status).toBe(200);
    expect((await snapshot(a.accountId)).domains).toEqual(['one.example.com']);
    expect((await snapshot(b.accountId)).domains).toEqual(['two.example.com']);
  });

  it.each([
    [{}],
    [{ slug: 'new-slug' }],
    [{ brandColor: 'red' }],
    [{ brandColor: '#12345' }],
    [{ brandLogo: 'javascript:alert(1)' }],
    [{ brandBanner: 'ftp://example.com/x.png' }],
    [{ name: '' }],
    [{ name: 'x'.repeat(201) }],
    [{ metaPixelId: 'has space' }],
    [{ customDomains: ['https://shop.example.com'] }],
    [{ customDomains: ['localhost'] }],
    [{ customDomains: ['shop.example.com:8080'] }],
    [{ customDomains: Array.from({ length: 11 }, (_, i) => `s${i}.example.com`) }],
    [{ manualPayment: { iban: 'x' } }],
    [{ manualPayment: { qris: { imageUrl: 'javascript:alert(1)' } } }],
    [{ manualPayment: { qris: { imageUrl: 'data:image/png;base64,AAAA' } } }],
    [{ manualPayment: { card: { instructions: 'Send us your card number' } } }],
    [{ unknown: true }],
  ])('refuses %j with 400 VALIDATION_ERROR and changes nothing', async (body) => {
    const ws = await t.ctx.createWorkspace();
    const before = await snapshot(ws.accountId);
    expectError(await http(t.api.baseUrl, 'PATCH', PATH, { key: ws.secretKey, body }), 400, 'VALIDATION_ERROR');
    expect(await snapshot(ws.accountId)).toEqual(before);
  });

  it('needs a secret key', async () => {
    const ws = await t.ctx.createWorkspace();
    expectError(await http(t.api.baseUrl, 'GET', PATH, { key: ws.publishableKey }), 403, 'FORBIDDEN');
    expectError(await http(t.api.baseUrl, 'PATCH', PATH, { key: ws.publishableKey, body: { name: 'X' } }), 403, 'FORBIDDEN');
    expectError(await http(t.api.baseUrl, 'GET', PATH), 401, 'AUTHENTICATION_REQUIRED');
  });
});
