import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';
import { freePort } from '../../scripts/lib/free-port';
import { seaweedfsExecutable } from '../../scripts/lib/temporal-binaries';

const TAIL_LINES = 40;

export interface S3TestServer {
  /** `http://127.0.0.1:<port>`: SeaweedFS's S3 gateway. */
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** A client with this server's credentials, for tests that look into the bucket. */
  client: S3Client;
  /** Creates a bucket with a fresh name and returns the name. */
  createBucket(): Promise<string>;
  /** What the API and the worker need to keep blobs in `bucket` (FILE_STORAGE=s3, S3_*, AWS credentials). */
  env(bucket: string): Record<string, string>;
  /** Last lines of the server's output, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * A real S3-compatible server on free loopback ports: SeaweedFS's `weed mini` (master, volume server, filer and
 * S3 gateway in one process, built by scripts/provision.sh), with one identity whose keys are made here. Its data
 * lives in a temporary directory removed on stop. Nothing else of it listens (no WebDAV, admin UI, Iceberg or
 * telemetry).
 */
export async function startS3Server(): Promise<S3TestServer> {
  const weed = seaweedfsExecutable();
  if (!weed) throw new Error('SeaweedFS is not provisioned: run `npm run provision` (it builds weed from its Go module) or set SEAWEEDFS_PATH');
  const dir = await mkdtemp(path.join(tmpdir(), 'seaweedfs-'));
  const accessKeyId = `test${randomBytes(8).toString('hex')}`;
  const secretAccessKey = randomBytes(20).toString('hex');
  await mkdir(path.join(dir, 'data'));
  const config = path.join(dir, 's3.json');
  await writeFile(
    config,
    JSON.stringify({ identities: [{ name: 'commerce-test', credentials: [{ accessKey: accessKeyId, secretKey: secretAccessKey }], actions: ['Admin', 'Read', 'List', 'Tagging', 'Write'] }] }),
  );
  // Eight listeners; the kernel may hand the same free port out twice in a row, so each is taken once.
  const taken = new Set<number>();
  const port = async (): Promise<number> => {
    for (;;) {
      const candidate = await freePort();
      if (!taken.has(candidate)) {
        taken.add(candidate);
        return candidate;
      }
    }
  };
  const s3Port = await port();
  const args = [
    'mini',
    `-dir=${path.join(dir, 'data')}`,
    '-ip=127.0.0.1',
    '-ip.bind=127.0.0.1',
    `-master.port=${await port()}`,
    `-master.port.grpc=${await port()}`,
    `-volume.port=${await port()}`,
    `-volume.port.grpc=${await port()}`,
    `-filer.port=${await port()}`,
    `-filer.port.grpc=${await port()}`,
    `-filer.localSocket=${path.join(dir, 'filer.sock')}`,
    `-s3.port=${s3Port}`,
    `-s3.port.grpc=${await port()}`,
    `-s3.localSocket=${path.join(dir, 's3.sock')}`,
    '-s3.port.iceberg=0',
    '-s3.port.lance=0',
    `-s3.config=${config}`,
    '-webdav=false',
    '-admin.ui=false',
    '-master.telemetry=false',
  ];
  // A bare environment, HOME and cwd in the temporary directory: weed reads S3_BUCKET, AWS_* and
  // ~/.seaweedfs/*.toml when present, and none of the caller's may reach this server.
  const child: ChildProcess = spawn(weed, args, { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir }, stdio: ['ignore', 'pipe', 'pipe'] });
  const tail: string[] = [];
  const onOutput = (chunk: Buffer) => {
    tail.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    tail.splice(0, Math.max(0, tail.length - TAIL_LINES));
  };
  child.stdout?.on('data', onOutput);
  child.stderr?.on('data', onOutput);
  let exit: string | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = signal ? `signal ${signal}` : `code ${code}`;
      resolve();
    });
  });
  const output = () => tail.join('\n');

  const endpoint = `http://127.0.0.1:${s3Port}`;
  const region = 'us-east-1';
  const client = new S3Client({ endpoint, region, forcePathStyle: true, credentials: { accessKeyId, secretAccessKey } });
  const stop = async () => {
    client.destroy();
    if (!exit) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    }
    await rm(dir, { recursive: true, force: true });
  };

  // Up once the gateway answers an authenticated request (it needs the master, volume server and filer first).
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exit) {
      await stop();
      throw new Error(`SeaweedFS exited with ${exit} before its S3 gateway answered\n${output()}`);
    }
    try {
      await client.send(new ListBucketsCommand({}));
      break;
    } catch (err) {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`SeaweedFS's S3 gateway did not answer within 60 s (${(err as Error).message})\n${output()}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  let buckets = 0;
  return {
    endpoint,
    region,
    accessKeyId,
    secretAccessKey,
    client,
    async createBucket() {
      buckets += 1;
      const name = `commerce-test-${buckets}-${randomBytes(4).toString('hex')}`;
      await client.send(new CreateBucketCommand({ Bucket: name }));
      return name;
    },
    env: (bucket) => ({
      FILE_STORAGE: 's3',
      S3_BUCKET: bucket,
      S3_REGION: region,
      S3_ENDPOINT: endpoint,
      S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: accessKeyId,
      AWS_SECRET_ACCESS_KEY: secretAccessKey,
    }),
    output,
    stop,
  };
}
