/**
 * npm start's local trace viewer (docs/tracing.md): Jaeger v2, built from its Go module in the background by the first `npm start` that
 * needs it (not by `npm install`: the build is large) and cached in ${COMMERCE_TOOLS_DIR:-~/.cache/commerce-tools}/bin;
 * JAEGER_PATH points at another binary. It keeps traces in memory and listens on loopback only: OTLP/HTTP for the
 * API and the worker, and its query service (HTTP API, and the web UI when the binary embeds one).
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { promisify } from 'node:util';
import { freePort } from './free-port';
import { runningChild, type Running } from './supervisor';
import { toolsDir } from './temporal-binaries';

const execFileAsync = promisify(execFile);

export const JAEGER_MODULE = 'github.com/jaegertracing/jaeger';
/** The module's v1 tags carry the v2 binary in cmd/jaeger. */
export const JAEGER_VERSION = 'v1.76.0';
const READY_TIMEOUT_MS = 30_000;

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

const cachedBinary = () => path.join(toolsDir(), 'bin', 'jaeger');
const stampFile = () => path.join(toolsDir(), 'jaeger.version');

/** JAEGER_PATH, else the cached build of JAEGER_VERSION; null when neither is there. */
export function jaegerExecutable(): string | null {
  if (process.env.JAEGER_PATH) return isExecutable(process.env.JAEGER_PATH) ? process.env.JAEGER_PATH : null;
  const bin = cachedBinary();
  const stamp = fs.existsSync(stampFile()) ? fs.readFileSync(stampFile(), 'utf8').trim() : '';
  return isExecutable(bin) && stamp === JAEGER_VERSION ? bin : null;
}

function run(command: string, args: string[], options: { cwd?: string; log: fs.WriteStream; env?: NodeJS.ProcessEnv }): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pipe(options.log, { end: false });
    child.stderr.pipe(options.log, { end: false });
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`))));
  });
}

/**
 * Builds Jaeger into the cache: `go install` refuses the module (its go.mod has replace directives), so it is built
 * in a writable copy of the module's source, as scripts/provision.sh does for SeaweedFS. Resolves with the binary,
 * or rejects with where the build log is.
 */
export async function buildJaeger(log: (line: string) => void): Promise<string> {
  if (spawnSync('go', ['version'], { stdio: 'ignore' }).status !== 0) throw new Error('no `go` on PATH to build it (or set JAEGER_PATH)');
  fs.mkdirSync(path.join(toolsDir(), 'bin'), { recursive: true });
  const buildLog = path.join(toolsDir(), 'jaeger-build.log');
  const work = fs.mkdtempSync(path.join(toolsDir(), '.jaeger.'));
  log(`building Jaeger ${JAEGER_VERSION}, the local trace viewer, from its Go module in the background (once: several CPU-minutes; this start goes on without traces); log: ${buildLog}`);
  const out = fs.createWriteStream(buildLog);
  try {
    // Asynchronous: npm start goes on serving while it runs.
    const download = await execFileAsync('go', ['mod', 'download', '-json', `${JAEGER_MODULE}@${JAEGER_VERSION}`], { encoding: 'utf8', maxBuffer: 4 * 1024 * 1024 }).catch(
      (err: { stderr?: string; message: string }) => {
        throw new Error(`go mod download ${JAEGER_MODULE}@${JAEGER_VERSION} failed: ${(err.stderr ?? err.message).trim()}`);
      },
    );
    const dir = (JSON.parse(download.stdout || '{}') as { Dir?: string }).Dir;
    if (!dir) throw new Error(`go mod download ${JAEGER_MODULE}@${JAEGER_VERSION} named no directory`);
    const source = path.join(work, 'src');
    fs.cpSync(dir, source, { recursive: true });
    await run('chmod', ['-R', 'u+w', source], { log: out });
    await run('go', ['build', '-trimpath', '-ldflags', '-s -w', '-o', path.join(work, 'jaeger'), './cmd/jaeger'], { cwd: source, log: out, env: { ...process.env, CGO_ENABLED: '0' } });
    fs.renameSync(path.join(work, 'jaeger'), cachedBinary());
    fs.writeFileSync(stampFile(), `${JAEGER_VERSION}\n`);
    return cachedBinary();
  } catch (err) {
    throw new Error(`${err instanceof Error ? err.message : String(err)} (build log: ${buildLog})`);
  } finally {
    out.end();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** Jaeger v2's configuration: OTLP/HTTP in, traces in memory, the query service; all on loopback. */
export function jaegerConfig(ports: { otlpHttp: number; ui: number; grpcQuery: number }): string {
  return `service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    logs:
      level: warn
    metrics:
      level: none
extensions:
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: 127.0.0.1:${ports.ui}
    grpc:
      endpoint: 127.0.0.1:${ports.grpcQuery}
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 100000
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${ports.otlpHttp}
processors:
  batch:
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`;
}

export interface TraceViewer extends Running {
  /** What the API and the worker are given. */
  env: Record<string, string>;
  /** Where a person looks. */
  url: string;
}

/**
 * Starts Jaeger in a session of its own (it must outlive a terminal's Ctrl-C until the worker has drained, as
 * npm start's other servers), writing its configuration to `dataDir`, and resolves once its query service answers.
 */
export async function startJaeger(
  executable: string,
  options: { dataDir: string; ports: { otlpHttp: number; ui: number; grpcQuery: number } },
): Promise<TraceViewer> {
  const configFile = path.join(options.dataDir, 'jaeger.yaml');
  fs.writeFileSync(configFile, jaegerConfig(options.ports));
  const child: ChildProcess = spawn(executable, ['--config', configFile], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const killOnExit = () => child.kill('SIGTERM');
  process.once('exit', killOnExit);
  child.once('close', () => process.off('exit', killOnExit));
  for (const stream of [child.stdout, child.stderr]) {
    if (stream) readline.createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => process.stderr.write(`[jaeger] ${line}\n`));
  }
  const running = runningChild(child);
  let exited = false;
  void running.exited.then(() => (exited = true));
  const url = `http://localhost:${options.ports.ui}`;
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const ready = await fetch(`http://127.0.0.1:${options.ports.ui}/api/services`, { signal: AbortSignal.timeout(1_000) }).then((r) => r.ok, () => false);
    if (ready) {
      return {
        exited: running.exited,
        stop: () => running.stop(),
        url,
        env: { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${options.ports.otlpHttp}`, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' },
      };
    }
    if (exited) throw new Error('Jaeger exited during start-up (see [jaeger] lines above)');
    if (Date.now() > deadline) {
      await running.stop();
      throw new Error(`Jaeger did not answer within ${READY_TIMEOUT_MS / 1000}s`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * npm start's trace viewer: the cached (or JAEGER_PATH) Jaeger, built first when neither exists, started under
 * `supervise` (npm start's supervisor: restarted if it dies, stopped in order). Null, with a line saying why, when it
 * cannot be built or started: npm start then goes on without tracing.
 */
export async function localTraceViewer(
  dataDir: string,
  log: (line: string) => void,
  supervise: (start: () => Promise<TraceViewer>) => Promise<TraceViewer>,
): Promise<TraceViewer | null> {
  const without = (why: string) => {
    log(`no trace viewer: ${why}; going on without tracing`);
    return null;
  };
  if (process.env.JAEGER_PATH && !isExecutable(process.env.JAEGER_PATH)) return without(`JAEGER_PATH (${process.env.JAEGER_PATH}) is not an executable file`);
  const executable = jaegerExecutable();
  if (!executable) {
    // The build takes many CPU-minutes: it runs in the background, so this start is not held up, and a later
    // `npm start` runs the viewer.
    buildJaeger(log).then(
      () => log('Jaeger is built: the next npm start runs it as the trace viewer'),
      (err: unknown) => log(`Jaeger could not be built: ${err instanceof Error ? err.message : String(err)}`),
    );
    return without('Jaeger is being built in the background (once, several minutes); the next npm start runs it');
  }
  const ports = { otlpHttp: await freePort(), ui: await freePort(), grpcQuery: await freePort() };
  const binary = executable;
  log(`starting Jaeger: OTLP/HTTP on 127.0.0.1:${ports.otlpHttp}, traces on ${ports.ui}`);
  try {
    return await supervise(() => startJaeger(binary, { dataDir, ports }));
  } catch (err) {
    return without(err instanceof Error ? err.message : String(err));
  }
}
