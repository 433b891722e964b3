import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import type { Sequelize } from 'sequelize';
import { createDatabase } from '../../db/connection';
import { Account } from '../../db/models';
import { loadConfig, requireDatabaseUrl } from '../../lib/config';
import { newId } from '../../lib/ids';
import { createLogger } from '../../lib/logger';
import { requestId } from '../../api/middleware/request-id';
import { requestLogger } from '../../api/middleware/request-logger';

let sequelize: Sequelize;
beforeAll(() => {
  sequelize = createDatabase({ url: requireDatabaseUrl(loadConfig(process.env)), poolMax: 2 });
});
afterAll(() => sequelize.close());

/** A logger whose lines land in `lines`, as written. */
function capture() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(chunk.toString('utf8'));
      callback();
    },
  });
  return {
    logger: createLogger('info', 'logger-test', sink),
    text: () => lines.join(''),
    err: () => (JSON.parse(lines[0]!) as { err: { sql: string } }).err,
  };
}

async function failure(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (err) {
    return err;
  }
  throw new Error('expected the query to fail');
}

describe('database errors in the log', () => {
  it('keep the statement shape and drop bind parameters and inlined literals', async () => {
    const err = await failure(() =>
      sequelize.query("SELECT id FROM accounts WHERE name = 'tenant-literal-7f3' AND no_such_column = $1", { bind: ['tenant-bind-7f3'] }),
    );
    const { logger, text } = capture();
    logger.error({ err }, 'query failed');
    expect(text()).toContain('no_such_column');
    expect(text()).toContain("WHERE name = '?' AND no_such_column = $1");
    expect(text()).not.toMatch(/tenant-(literal|bind)-7f3/);
  });

  it('drop the values of a unique violation: bind parameters, fields, items and pg detail', async () => {
    const slug = `tenant-slug-${Date.now().toString(36)}`;
    await Account.create({ id: newId('acc'), name: 'Tenant One', slug });
    const err = await failure(() => Account.create({ id: newId('acc'), name: 'Tenant Two Private Name', slug }));
    expect((err as Error).name).toBe('SequelizeUniqueConstraintError');
    const { logger, text, err: logged } = capture();
    logger.error({ err }, 'insert failed');
    expect(logged().sql).toMatch(/^INSERT INTO "accounts" .* VALUES \(\$1,\$2,/);
    expect(text()).not.toContain(slug);
    expect(text()).not.toContain('Tenant Two Private Name');
  });

  it('does the same through the API’s request logger (pino-http brings its own err serializer)', async () => {
    const err = await failure(() => sequelize.query('SELECT no_such_column FROM accounts WHERE id = $1', { bind: ['tenant-bind-9c1'] }));
    const { logger, text } = capture();
    const app = express();
    app.use(requestId, requestLogger(logger));
    app.get('/fail', (req, res) => {
      req.log.error({ err }, 'query failed');
      res.status(500).end();
    });
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/fail`);
    } finally {
      server.close();
    }
    expect(text()).toContain('no_such_column');
    expect(text()).not.toContain('tenant-bind-9c1');
  });
});
