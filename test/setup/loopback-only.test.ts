import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { request } from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

// The guard in test/setup/loopback-only.ts is loaded by jest's setupFiles for every test file, this one included.

function connected(socket: Socket): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once('connect', () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', reject);
  });
}

describe('loopback-only socket guard', () => {
  it('refuses a non-loopback address, naming it', () => {
    expect(() => connect(80, '192.0.2.1')).toThrow('Tests may not connect to 192.0.2.1:80');
    expect(() => connect({ host: '2001:db8::1', port: 443 })).toThrow('Tests may not connect to 2001:db8::1:443');
    expect(() => connect({ host: '0.0.0.0', port: 80 })).toThrow('0.0.0.0');
  });

  it('refuses a name other than localhost before resolving it, through net, https and fetch alike', async () => {
    expect(() => connect(443, 'example.com')).toThrow('Tests may not connect to example.com:443');
    expect(() => request('https://hooks.example.com/x').end()).toThrow('hooks.example.com');
    await expect(fetch('https://example.com/')).rejects.toMatchObject({ cause: { message: expect.stringContaining('example.com:443') } });
  });

  it('allows 127.0.0.0/8, ::1, localhost and unix sockets', async () => {
    const server = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const dir = await mkdtemp(path.join(tmpdir(), 'loopback-only-'));
    const unix = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => unix.listen(path.join(dir, 'sock'), resolve));
    try {
      await connected(connect(port, '127.0.0.1'));
      await connected(connect({ host: 'localhost', port, family: 4 }));
      await connected(connect(path.join(dir, 'sock')));
      // Another 127/8 address: refused by the kernel (nothing listens there), not by the guard.
      await expect(connected(connect(port, '127.0.0.2'))).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      // Whether IPv6 is up here varies; only the guard's verdict is checked.
      for (const host of ['::1', '::ffff:127.0.0.1']) {
        const socket = connect({ host, port });
        socket.on('error', () => undefined);
        socket.destroy();
      }
    } finally {
      server.close();
      unix.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
