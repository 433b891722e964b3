import { Writable } from 'node:stream';
import { createLogger } from '../../lib/logger';
import { createTestContext, http, type TestApi, type TestContext } from '../helpers/context';
import { expectError } from '../helpers/expect';
import type { CreatedWorkspace } from '../../domain/workspaces/service';

let ctx: TestContext;
let api: TestApi;
let ws: CreatedWorkspace;
/** Every line the API logged, parsed. */
const logLines: { level: number; msg: string; err?: unknown }[] = [];

beforeAll(async () => {
  ctx = await createTestContext();
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
      callback();
    },
  });
  api = await ctx.startApi({}, { logger: createLogger('info', 'http-hardening', sink) });
  ws = await ctx.createWorkspace();
});
afterAll(() => ctx.close());

const PINO_ERROR = 50;

describe('a path that does not decode', () => {
  it('answers a malformed percent-encoding in a path parameter with 400 VALIDATION_ERROR, no key needed, nothing logged as an error', async () => {
    logLines.length = 0;
    const res = await http(api.baseUrl, 'GET', '/api/v1/storefront/products/%FF%FE');
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(res.text).not.toMatch(/URIError|at .+\.(ts|js):\d+/);
    expect(logLines.filter((l) => l.level >= PINO_ERROR)).toEqual([]);
  });

  it('still answers a well-formed id that does not exist with 404', async () => {
    const res = await http(api.baseUrl, 'GET', `/api/v1/storefront/products/${encodeURIComponent('prod_ü')}`, { key: ws.secretKey });
    expect(res.status).toBe(404);
  });
});
