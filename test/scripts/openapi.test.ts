/** `npm run -s openapi` prints the served document with no database and no Temporal server to reach. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { http, useTestApi } from '../helpers/context';

const t = useTestApi();
const root = path.resolve(__dirname, '../..');

describe('npm run -s openapi', () => {
  it('prints the same document /api/openapi.json serves, with nothing to connect to', async () => {
    const served = await http<Record<string, unknown>>(t.api.baseUrl, 'GET', '/api/openapi.json');
    // Only what a fresh shell has: no DATABASE_URL, no ENCRYPTION_KEY, and a Temporal address nothing listens on.
    const { stdout } = await promisify(execFile)(path.join(root, 'node_modules/.bin/tsx'), ['scripts/openapi.ts'], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PUBLIC_BASE_URL: 'https://shop.example', TEMPORAL_ADDRESS: '127.0.0.1:9' },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 60_000,
    });
    expect(served.status).toBe(200);
    const printed = JSON.parse(stdout) as Record<string, unknown>;
    expect(printed.servers).toEqual([{ url: 'https://shop.example/api' }]);
    expect({ ...printed, servers: [] }).toEqual({ ...served.body, servers: [] });
  });
});
