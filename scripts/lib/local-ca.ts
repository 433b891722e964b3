/**
 * The local stack's own certificate authority, kept in $DATA_DIR/local-ca: `npm start` hands its certificate to
 * the API and the worker through NODE_EXTRA_CA_CERTS, and `npm run cli -- webhooks listen` issues its loopback
 * receiver's certificate with it, so the worker's webhook sends (HTTPS only) trust the receiver without any
 * certificate being installed on the machine. The CA's key never leaves DATA_DIR (mode 0600) and the CA is
 * created on first use, by whichever of the two comes first.
 */
import fs from 'node:fs';
import path from 'node:path';

const CA_DIR = 'local-ca';
const CA_CERT = 'ca.pem';
const CA_KEY = 'ca-key.pem';
const TRUST_BUNDLE = 'trust-bundle.pem';
const CA_DAYS = 3650;
const LEAF_DAYS = 30;

/**
 * `selfsigned` is a development dependency, loaded on first use: the production CLI (`node dist/scripts/cli.js`)
 * must start without it, and only the local-stack commands need it.
 */
async function generate(...args: Parameters<typeof import('selfsigned').generate>): ReturnType<typeof import('selfsigned').generate> {
  let selfsigned: typeof import('selfsigned');
  try {
    selfsigned = await import('selfsigned');
  } catch {
    throw new Error('the local CA (npm start, webhooks listen) needs the development dependencies: run `npm install` in a checkout');
  }
  return selfsigned.generate(...args);
}

export interface LocalCa {
  /** The CA certificate's file, for NODE_EXTRA_CA_CERTS. */
  certFile: string;
  cert: string;
  key: string;
}

export function localCaDir(dataDir: string): string {
  return path.join(path.resolve(dataDir), CA_DIR);
}

function readCa(dir: string): LocalCa | null {
  try {
    return { certFile: path.join(dir, CA_CERT), cert: fs.readFileSync(path.join(dir, CA_CERT), 'utf8'), key: fs.readFileSync(path.join(dir, CA_KEY), 'utf8') };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** The CA of this DATA_DIR, generated on first use (written whole into a temporary directory, then renamed into place). */
export async function ensureLocalCa(dataDir: string): Promise<LocalCa> {
  const dir = localCaDir(dataDir);
  const existing = readCa(dir);
  if (existing) return existing;
  const ca = await generate([{ name: 'commonName', value: 'Commerce local stack CA' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + CA_DAYS * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const tmp = fs.mkdtempSync(`${dir}.tmp-`);
  fs.writeFileSync(path.join(tmp, CA_KEY), ca.private, { mode: 0o600 });
  fs.writeFileSync(path.join(tmp, CA_CERT), ca.cert);
  try {
    fs.renameSync(tmp, dir);
  } catch (err) {
    // Another process made it first: use theirs.
    fs.rmSync(tmp, { recursive: true, force: true });
    if (!['EEXIST', 'ENOTEMPTY'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
  }
  const made = readCa(dir);
  if (!made) throw new Error(`${dir}: the local CA could not be read back`);
  return made;
}

/** A short-lived server certificate for localhost, 127.0.0.1 and ::1, signed by the local CA. */
export async function issueLoopbackCertificate(ca: LocalCa): Promise<{ cert: string; key: string }> {
  const leaf = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + LEAF_DAYS * 86_400_000),
    ca: { key: ca.key, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }] },
    ],
  });
  return { cert: `${leaf.cert.trim()}\n${ca.cert.trim()}\n`, key: leaf.private };
}

/**
 * The file to pass as NODE_EXTRA_CA_CERTS: the CA's certificate, or, when the environment already names a file
 * (Node takes only one), a bundle of that file's certificates and the CA's.
 */
export function trustFile(dataDir: string, ca: LocalCa, extra: string | undefined): string {
  if (!extra || path.resolve(extra) === ca.certFile) return ca.certFile;
  const bundle = path.join(localCaDir(dataDir), TRUST_BUNDLE);
  fs.writeFileSync(bundle, `${fs.readFileSync(extra, 'utf8').trim()}\n${ca.cert.trim()}\n`);
  return bundle;
}
