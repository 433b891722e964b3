import { Account } from '../../db/models';
import { http, useTestApi } from '../helpers/context';
import { expectError } from '../helpers/expect';

const t = useTestApi();

describe('/v1/modules', () => {
  it('reads and switches modules for the workspace only', async () => {
    const ws = await t.ctx.createWorkspace();
    const other = await t.ctx.createWorkspace();
    const on = await http(t.api.baseUrl, 'POST', '/api/v1/modules', { key: ws.secretKey, body: { module: 'fulfillment', enabled: true } });
    expect(on.status).toBe(200);
    expect(on.body.data).toEqual({ fulfillment: true, payment: false });
    const read = await http(t.api.baseUrl, 'GET', '/api/v1/modules', { key: ws.liveSecretKey });
    expect(read.body.data).toEqual({ fulfillment: true, payment: false });
    const untouched = await http(t.api.baseUrl, 'GET', '/api/v1/modules', { key: other.secretKey });
    expect(untouched.body.data).toEqual({ fulfillment: false, payment: false });
    const off = await http(t.api.baseUrl, 'POST', '/api/v1/modules', { key: ws.secretKey, body: { module: 'fulfillment', enabled: false } });
    expect(off.body.data).toEqual({ fulfillment: false, payment: false });
  });

  it.each([
    [{ module: 'shipping', enabled: true }],
    [{ module: 'payment', enabled: 'yes' }],
    [{ module: 'payment' }],
    [{ module: 'payment', enabled: true, extra: 1 }],
  ])('refuses %j with 400 VALIDATION_ERROR and changes nothing', async (body) => {
    const ws = await t.ctx.createWorkspace();
    expectError(await http(t.api.baseUrl, 'POST', '/api/v1/modules', { key: ws.secretKey, body }), 400, 'VALIDATION_ERROR');
    const account = await Account.findByPk(ws.accountId);
    expect([account!.fulfillmentEnabled, account!.paymentEnabled]).toEqual([false, false]);
  });

  it('refuses a publishable key', async () => {
    const ws = await t.ctx.createWorkspace();
    expectError(await http(t.api.baseUrl, 'POST', '/api/v1/modules', { key: ws.publishableKey, body: { module: 'payment', enabled: true } }), 403, 'FORBIDDEN');
    expect((await Account.findByPk(ws.accountId))!.paymentEnabled).toBe(false);
  });
});
