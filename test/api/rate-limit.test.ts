import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { QueryTypes } from 'sequelize';
import { counterOptions, SharedRateLimiter } from '../../api/middleware/rate-limit';
import { createDatabase } from '../../db/connection';
import { requireDatabaseUrl } from '../../lib/config';
import { createTestContext, http, type TestContext } from '../helpers/context';
import { waitFor } from '../helpers/wait';
import { expectError } from '../helpers/expect';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

describe('per-workspace rate limit', () => {
  it('is one limit shared by two API instances, answered 429 RATE_LIMITED with Retry-After', async () => {
    const env = { RATE_LIMIT_PER_MINUTE: '10' };
    const [a, b] = [await ctx.startApi(env), await ctx.startApi(env)];
    const ws = await ctx.createWorkspace();
    const statuses: number[] = [];
    for (let i = 0; i < 10; i += 1) {
      statuses.push((await http((i % 2 ? b : a).baseUrl, 'GET', '/api/v1/modules', { key: ws.secretKey })).status);
    }
    expect(statuses).toEqual(Array(10).fill(200));
    const limited = await http(b.baseUrl, 'GET', '/api/v1/modules', { key: ws.secretKey });
    expectError(limited, 429, 'RATE_LIMITED');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await http(a.baseUrl, 'GET', '/api/v1/modules', { key: ws.secretKey })).status).toBe(429);

    // Another workspace, and the same workspace's live environment, have their own budgets.
    const other = await ctx.createWorkspace();
    expect((await http(a.baseUrl, 'GET', '/api/v1/modules', { key: other.secretKey })).status).toBe(200);
    expect((await http(a.baseUrl, 'GET', '/api/v1/modules', { key: ws.liveSecretKey })).status).toBe(200);
  });

  it('counts every request in the shared counter while batching writes far from the limit', async () => {
    const api = await ctx.startApi({ RATE_LIMIT_PER_MINUTE: '1000' });
    // The counter's window is a minute from a workspace's first request: a run that took longer than that (a very
    // loaded machine) may have crossed into the next window, and is measured again with a fresh workspace.
    const inOneWindow = async () => {
      const ws = await ctx.createWorkspace();
      const started = Date.now();
      const remaining: number[] = [];
      for (let i = 0; i < 30; i += 1) {
        const res = await http(api.baseUrl, 'GET', '/api/v1/modules', { key: ws.secretKey });
        expect(res.status).toBe(200);
        remaining.push(Number(res.headers.get('x-ratelimit-remaining')));
      }
      return Date.now() - started < 50_000 && { ws, remaining };
    };
    let run = await inOneWindow();
    for (let tries = 1; !run && tries < 3; tries += 1) run = await inOneWindow();
    if (!run) throw new Error('no run of 30 requests fitted in one window');
    const { ws, remaining } = run;
    expect(remaining[0]).toBe(999);
    expect(remaining[29]).toBe(970);
    // The last batch is written within ~100 ms; a count that never reaches 30 times out, one past it fails below.
    const points = await waitFor(async () => {
      const [row] = await ctx.sequelize.query<{ points: number }>('SELECT points FROM rate_limits WHERE key = :key', {
        type: QueryTypes.SELECT,
        replacements: { key: `ws:${ws.accountId}:test` },
      });
      return row && row.points >= 30 && row.points;
    }, { timeoutMs: 5_000 });
    expect(points).toBe(30);
  });
});

describe('SharedRateLimiter', () => {
  it('keeps the requests it held when the shared counter cannot be written, and counts them with the next', async () => {
    // The store on a connection of its own, so that it alone can be cut (as a database restart would).
    const applicationName = `rate-limit-cut-${process.pid}-${Date.now()}`;
    const sequelize = createDatabase({ url: requireDatabaseUrl(ctx.config), poolMax: 1, applicationName });
    try {
      const store = new RateLimiterPostgres({ storeClient: sequelize, storeType: 'sequelize', ...counterOptions(`cut${Date.now()}:`, 1000) });
      const limiter = new SharedRateLimiter(store);
      let counted = 0;
      await limiter.consume('k');
      counted += 1;
      const key = `${store.keyPrefix}:k`;
      // The flush of the next four waits for the counter's row, held here, and its connection is cut while it waits.
      let release!: () => void;
      let holder!: Promise<void>;
      const held = new Promise<void>((locked) => {
        holder = ctx.sequelize.transaction(async (tx) => {
          await ctx.sequelize.query('SELECT points FROM rate_limits WHERE key = :key FOR UPDATE', { replacements: { key }, transaction: tx });
          locked();
          await new Promise<void>((resolve) => (release = resolve));
        });
      });
      await held;
      for (let i = 0; i < 4; i += 1) await limiter.consume('k');
      counted += 4;
      await waitFor(async () => {
        const cut = await ctx.sequelize.query<{ cut: boolean }>(
          `SELECT pg_terminate_backend(pid) AS cut FROM pg_stat_activity WHERE application_name = :applicationName AND wait_event_type = 'Lock'`,
          { type: QueryTypes.SELECT, replacements: { applicationName } },
        );
        return cut.length === 1 && cut[0]!.cut;
      });
      release();
      await holder;
      // The next request takes the exact path and adds what was held; one that meets the cut connection fails and is not counted.
      await waitFor(async () => {
        const ok = await limiter.consume('k').then(
          () => true,
          () => false,
        );
        if (ok) counted += 1;
        return ok;
      });
      const points = async () => (await ctx.sequelize.query<{ points: number }>('SELECT points FROM rate_limits WHERE key = :key', { type: QueryTypes.SELECT, replacements: { key } }))[0]?.points;
      // Written by that request, or by the flush after it; one past the count fails below.
      await waitFor(async () => ((await points()) ?? 0) >= counted, { timeoutMs: 5_000 });
      expect(await points()).toBe(counted);
    } finally {
      await sequelize.close();
    }
  });

  it('keeps the newest count when the shared counter\'s answers arrive out of order', async () => {
    // PostgreSQL serialises the two writes; the answer of the first is delivered after the second's, as two
    // connections on a loaded machine can. The older, smaller count must not replace the newer one.
    class LateFirstAnswer extends RateLimiterPostgres {
      private calls = 0;
      override async consume(key: string | number, points?: number): Promise<RateLimiterRes> {
        this.calls += 1;
        const late = this.calls === 2;
        const result = await super.consume(key, points);
        if (late) await new Promise((resolve) => setTimeout(resolve, 400));
        return result;
      }
    }
    const store = new LateFirstAnswer({ storeClient: ctx.sequelize, storeType: 'sequelize', ...counterOptions(`order${Date.now()}:`, 1000) });
    const limiter = new SharedRateLimiter(store);
    await limiter.consume('k'); // exact: 1
    for (let i = 0; i < 5; i += 1) await limiter.consume('k'); // held, flushed as the late answer (6)
    await new Promise((resolve) => setTimeout(resolve, 150));
    for (let i = 0; i < 3; i += 1) await limiter.consume('k'); // held, flushed and answered first (9)
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await limiter.consume('k')).toBe(1000 - 10);
  });

  it('forgets keys whose window has ended, so per-IP state does not grow without bound', async () => {
    const store = new RateLimiterPostgres({ storeClient: ctx.sequelize, storeType: 'sequelize', ...counterOptions(`sweep${Date.now()}:`, 5), duration: 1 });
    const limiter = new SharedRateLimiter(store);
    for (let i = 0; i < 40; i += 1) await limiter.consume(`ip-${i}`);
    expect(limiter.trackedKeys).toBe(40);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await limiter.consume('ip-new');
    expect(limiter.trackedKeys).toBe(1);
    // A forgotten key starts from the shared counter again: still limited within its new window.
    for (let i = 0; i < 4; i += 1) await limiter.consume('ip-new');
    await expect(limiter.consume('ip-new')).rejects.toMatchObject({ remainingPoints: 0 });
  });
});
