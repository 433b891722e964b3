import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Jest setup file: every socket a test process opens must stay on this machine. Node's own clients (http,
 * https and fetch/undici, tls, http2 and so grpc-js, pg) all connect through net.Socket.prototype.connect,
 * so patching it covers them. A name other than `localhost` is refused before it is resolved: tests never
 * reach the network, not even its DNS for a connection. Not covered: what native code connects (the Temporal
 * Rust core behind NativeConnection and Worker) and child processes (they do not load this file);
 * `dns.lookup` itself is allowed, since the webhook target checks resolve names without connecting.
 */

const PATCHED = Symbol.for('commerce-service.test.loopback-only');

type Connect = (this: net.Socket, ...args: unknown[]) => net.Socket;
type Patchable = { connect: Connect; [PATCHED]?: true };

function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  // ipaddr.js also parses shorthand such as "127.1", which the resolver would look up as a name.
  return net.isIP(bare) !== 0 && ipaddr.process(bare).range() === 'loopback';
}

/** Where connect() was asked to go, from any of its call forms (net.connect passes its normalized [options, callback]). */
function targetOf(args: unknown[]): { path: string } | { host: string; port: unknown } {
  const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
  if (first !== null && typeof first === 'object') {
    const options = first as { path?: unknown; host?: unknown; port?: unknown };
    if (typeof options.path === 'string' && options.path !== '') return { path: options.path };
    return { host: typeof options.host === 'string' && options.host !== '' ? options.host : 'localhost', port: options.port };
  }
  if (typeof first === 'string' && !/^\d+$/.test(first)) return { path: first };
  return { host: typeof args[1] === 'string' && args[1] !== '' ? args[1] : 'localhost', port: first };
}

const socketPrototype = net.Socket.prototype as unknown as Patchable;
if (!socketPrototype[PATCHED]) {
  const connect = socketPrototype.connect;
  socketPrototype.connect = function guardedConnect(this: net.Socket, ...args: unknown[]) {
    const target = targetOf(args);
    if ('host' in target && !isLoopback(target.host)) {
      throw new Error(
        `Tests may not connect to ${target.host}:${String(target.port)}: only loopback (127.0.0.0/8, ::1, localhost) and unix sockets are allowed (test/setup/loopback-only.ts)`,
      );
    }
    return connect.apply(this, args);
  };
  socketPrototype[PATCHED] = true;
}
