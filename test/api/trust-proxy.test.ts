import { request } from 'node:http';
import { useTestApi } from '../helpers/context';

// Per-IP limits key on req.ip: with TRUST_PROXY=0 a client cannot choose its IP through X-Forwarded-For.
const direct = useTestApi({ PUBLIC_RATE_LIMIT_PER_MINUTE: '2' });
const proxied = useTestApi({ PUBLIC_RATE_LIMIT_PER_MINUTE: '2', TRUST_PROXY: '1' });

// Every test file's public requests come from 127.0.0.1 and share its counter; these come from an address of
// the loopback range that no other test uses (Linux answers the whole 127.0.0.0/8 on lo).
const SOURCE = `127.${Math.floor(Math.random() * 200) + 20}.${Math.floor(Math.random() * 250) + 1}.${process.pid % 250 + 2}`;

function read(baseUrl: string, forwardedFor: string): Promise<{ status: number; headers: Record<string, unknown> }> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, localAddress: SOURCE, path: '/api/v1/storefront/public/resolve/no-such-merchant-zz', headers: { 'x-forwarded-for': forwardedFor } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('TRUST_PROXY', () => {
  it('ignores X-Forwarded-For by default: every request counts against the socket address', async () => {
    expect((await read(direct.api.baseUrl, '203.0.113.1')).status).toBe(404);
    expect((await read(direct.api.baseUrl, '203.0.113.2')).status).toBe(404);
    const third = await read(direct.api.baseUrl, '203.0.113.3');
    expect(third.status).toBe(429);
    expect(third.headers['retry-after']).toMatch(/^\d+$/);
  });

  it('believes one proxy hop when TRUST_PROXY=1: each forwarded client has its own budget', async () => {
    for (const ip of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) expect((await read(proxied.api.baseUrl, ip)).status).toBe(404);
    await read(proxied.api.baseUrl, '198.51.100.9');
    expect((await read(proxied.api.baseUrl, '198.51.100.9')).status).toBe(404);
    expect((await read(proxied.api.baseUrl, '198.51.100.9')).status).toBe(429);
  });
});
