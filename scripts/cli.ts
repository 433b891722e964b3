/**
 * Operator CLI: `npm run cli -- <group> <action> [options]`.
 *
 * The commands that create or change (workspace create, user, keys create, modules set) print exactly one JSON
 * object on stdout (so scripts can pipe it into `jq`). The operator's views and actions (workspace list|show, keys
 * list|revoke, webhooks retry, stuck, migrate status) print for a person, or that JSON with `--json`. Messages and
 * progress go to stderr. Exit codes: 0 done, 1 refused or failed (validation by the service, unknown workspace,
 * configuration, database), 2 bad or missing arguments.
 *
 * Database: DATABASE_URL, or else the embedded PostgreSQL of a running `npm start` with the same
 * DATA_DIR (read from $DATA_DIR/stack.json). Migrations run first, so a fresh database works (not for
 * `migrate status`, which reports them). Temporal (webhooks retry): TEMPORAL_ADDRESS, or that `npm start`'s.
 */
import { parseArgs, types } from 'node:util';
import { Connection, type Client } from '@temporalio/client';
import type { Sequelize } from 'sequelize';
import { createDatabase } from '../db/connection';
import { migrateToLatest, migrationStatus, type MigrationStatus } from '../db/migrate';
import { resealColumn, SEALED_COLUMNS } from '../db/sealed-columns';
import { Account, ApiKey, MEMBERSHIP_ROLES, type Environment, type KeyAccess, type MembershipRole, type Plan } from '../db/models';
import { issueKey, revokeKeyAsOperator, toApiKeyDto } from '../domain/api-keys';
import { MODULES, createModuleService } from '../domain/modules';
import { findStuckWork, type StuckItem } from '../domain/stuck-work';
import { createUserService } from '../domain/users';
import { deliveryTenant, parseDeliveryWorkflowId, retryDeliveryNow, type DeliveryRetried } from '../domain/webhooks';
import { createWorkspaceService } from '../domain/workspaces';
import { ConfigError, loadConfig, requireKeyRing, type Config } from '../lib/config';
import { createCryptoBox } from '../lib/crypto-box';
import { createTemporalClient } from '../lib/temporal-client';
import { AppError } from '../lib/errors';
import { PLANS } from '../lib/plans';
import { isProcessAlive, localEncryptionKey, readStackState, resolveLocalDatabaseUrl } from './lib/local-stack';
import { describeListenResult, listenForWebhooks, type ListenInput } from './lib/webhook-listener';

const USAGE = `Usage: npm run cli -- <command> [options]

Commands:
  workspace create --name <name> [--slug <slug>] [--plan free|starter|pro] [--owner-email <e-mail>]
      Creates a workspace and its four starting keys; prints
      {"accountId","slug","secretKey","publishableKey","liveSecretKey","livePublishableKey"}, and with
      --owner-email also "owner": {"userId","email"} (plus "password", shown once, when the user is new).
  user create --email <e-mail> --workspace <slug|acc_…> --role owner|member
      Creates a dashboard user in a workspace. The password is read from standard input when it is not a
      terminal (e.g. \`printf %s "$PW" | npm run cli -- user create …\`); otherwise one is generated and printed
      once. Prints {"userId","email","accountId","role"[,"password"]}.
  user add-member --email <e-mail> --workspace <slug|acc_…> [--role member|owner]
      Adds an existing user to another workspace; prints {"userId","email","accountId","role"}.
  keys create --account <acc_…> --name <name> --environment test|live --access secret|publishable
      Mints an API key; prints its metadata and its value (shown once).
  modules set --account <acc_…> --module fulfillment|payment --enabled true|false
      Switches a module; prints {"fulfillment":bool,"payment":bool}.
  encryption rotate [--batch-size <n>]
      Re-encrypts every sealed column under ENCRYPTION_KEY (after a rotation: the old key moved to
      ENCRYPTION_KEYS_RETIRED), in batches, with progress on stderr; safe to run again. Prints
      {"keyId","rewritten","unreadable","columns":[{"table","column","found","rewritten","unreadable"}]}; exit 1 when
      a value opens with none of the keys (its row is listed): its key must stay until that is resolved.

Operators (human output; --json prints one JSON value instead):
  workspace list [--limit <n>]            Workspaces, newest first.
  workspace show <slug|acc_…>             A workspace, its modules and its API keys.
  keys list --account <slug|acc_…> [--environment test|live]
                                          A workspace's API keys (never their values).
  keys revoke <key_…>                     Revokes a key at once, in every API process; audited.
  webhooks retry <webhook-delivery:evt_…:whe_…>
                                          Makes a waiting delivery's next attempt now (no reset needed) and
                                          prints its outcome; the delivery log shows it.
  webhooks listen [--api-key <sk_…> | --account <slug|acc_…> [--environment test|live]]
                  [--events <type,type,…>] [--forward-to <http://localhost:…>] [--port <n>]
                                          Receives a workspace's webhooks on loopback (HTTPS, a certificate of
                                          the local CA \`npm start\` trusts) through a temporary endpoint: prints
                                          each event (type, id, signature check), forwards it unchanged with
                                          --forward-to; Ctrl-C removes the endpoint. Default: the demo workspace's
                                          test environment. docs/webhooks.md.
  stuck [--limit <n>]                     Work that has not gone through, oldest first, with its age and
                                          workflow id: durable starts not made, outbox events not relayed,
                                          webhook deliveries and e-mails failing, credits past due and not
                                          settled. Progress on stderr.
  migrate status                          Applied and pending migrations; changes nothing.

Database: DATABASE_URL, or the embedded PostgreSQL of a running \`npm start\` (same DATA_DIR).
Exit codes: 0 done, 1 refused or failed, 2 bad arguments.`;

/** Bad or missing arguments: exit code 2. */
class UsageError extends Error {}

/** A command that did its work but not all of it: its result still goes to stdout, with exit code 1. */
class CommandFailed extends Error {
  constructor(message: string, readonly result: unknown) {
    super(message);
  }
}

type StringOptions = Record<string, { type: 'string' }>;

/** What a command may use besides the database: the configuration, Temporal (connected on first use), a progress
 * line on stderr and what was piped in. */
interface Tools {
  config: Config;
  temporal(): Promise<Client>;
  progress(line: string): void;
  /** The text piped in (its one trailing line break dropped); undefined at a terminal or with nothing piped. */
  stdinText(): Promise<string | undefined>;
}

/**
 * Where one run of the CLI reads and writes. The entry point hands in the process's own; tests run the CLI in
 * their own process with theirs (and their open database, which the run then leaves open).
 */
export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdout(text: string): void;
  stderr(text: string): void;
  stdinText(): Promise<string | undefined>;
  sequelize?: Sequelize;
}

interface Command<T> {
  options: StringOptions;
  /** Names of the positional arguments the command takes, in order (none by default). */
  positionals?: string[];
  /** Turns the parsed flags (and positionals, by name) into the command's input; throws UsageError for bad values. */
  parse(values: Record<string, string | undefined>): T;
  run(sequelize: Sequelize, input: T, tools: Tools): Promise<unknown>;
  /** The result for a person; without it (or with --json) the command prints JSON. */
  human?(result: never): string;
  /** False for a command that must see the database as it is (migrate status). */
  migrates?: boolean;
}

function required(values: Record<string, string | undefined>, name: string): string {
  const value = values[name];
  if (value === undefined || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

function oneOf<T extends string>(value: string, name: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`--${name} must be one of ${allowed.join(', ')} (got "${value}")`);
  }
  return value as T;
}

function accountId(values: Record<string, string | undefined>): string {
  const id = required(values, 'account');
  if (!/^acc_[0-9A-Za-z]+$/.test(id)) throw new UsageError(`--account must be a workspace id like acc_… (got "${id}")`);
  return id;
}

const workspaceCreate: Command<{ name: string; slug?: string; plan: Plan; ownerEmail?: string }> = {
  options: { name: { type: 'string' }, slug: { type: 'string' }, plan: { type: 'string' }, 'owner-email': { type: 'string' } },
  parse: (values) => ({
    name: required(values, 'name'),
    slug: values.slug,
    plan: oneOf(values.plan ?? 'free', 'plan', PLANS),
    ...(values['owner-email'] === undefined ? {} : { ownerEmail: required(values, 'owner-email') }),
  }),
  run: (sequelize, input) => createWorkspaceService({ sequelize }).create(input),
};

const keysCreate: Command<{ accountId: string; name: string; environment: Environment; access: KeyAccess }> = {
  options: { account: { type: 'string' }, name: { type: 'string' }, environment: { type: 'string' }, access: { type: 'string' } },
  parse(values) {
    const name = required(values, 'name').trim();
    if (name.length > 100) throw new UsageError('--name must be at most 100 characters');
    return {
      accountId: accountId(values),
      name,
      environment: oneOf(required(values, 'environment'), 'environment', ['test', 'live'] as const),
      access: oneOf(required(values, 'access'), 'access', ['secret', 'publishable'] as const),
    };
  },
  async run(sequelize, input) {
    const { key, value } = await sequelize.transaction(async (transaction) => {
      const account = await Account.findByPk(input.accountId, { transaction });
      if (!account) throw new AppError('RESOURCE_NOT_FOUND', `Workspace ${input.accountId} not found`);
      return issueKey(transaction, { accountId: account.id }, { name: input.name, environment: input.environment, access: input.access }, { apiKeyId: null, source: 'cli' });
    });
    return { ...toApiKeyDto(key), value };
  },
};

const modulesSet: Command<{ accountId: string; module: 'fulfillment' | 'payment'; enabled: boolean }> = {
  options: { account: { type: 'string' }, module: { type: 'string' }, enabled: { type: 'string' } },
  parse: (values) => ({
    accountId: accountId(values),
    module: oneOf(required(values, 'module'), 'module', MODULES),
    enabled: oneOf(required(values, 'enabled'), 'enabled', ['true', 'false'] as const) === 'true',
  }),
  run: (_sequelize, input) => createModuleService().set(input.accountId, { module: input.module, enabled: input.enabled }),
};

const encryptionRotate: Command<{ batchSize: number }> = {
  options: { 'batch-size': { type: 'string' } },
  parse(values) {
    const batchSize = Number(values['batch-size'] ?? 500);
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) throw new UsageError('--batch-size must be a whole number from 1 to 10000');
    return { batchSize };
  },
  async run(sequelize, { batchSize }, tools) {
    const box = createCryptoBox(requireKeyRing(tools.config));
    const keyId = box.keyRing.current.id;
    const columns = [];
    for (const target of SEALED_COLUMNS) {
      columns.push(
        await resealColumn(sequelize, target, {
          currentPrefix: `v2.${keyId}.`,
          reseal: (sealed) => box.reseal(sealed),
          batchSize,
          onProgress: ({ table, column, done, found }) => tools.progress(`${table}.${column}: ${done}/${found}`),
        }),
      );
    }
    const unreadable = columns.reduce((n, c) => n + c.unreadable.length, 0);
    const result = { keyId, rewritten: columns.reduce((n, c) => n + c.rewritten, 0), unreadable, columns };
    if (unreadable > 0) throw new CommandFailed(`${unreadable} sealed value(s) open with none of the configured keys`, result);
    return result;
  },
};

function limit(values: Record<string, string | undefined>, fallback: number): number {
  const text = values.limit ?? String(fallback);
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 10_000) throw new UsageError(`--limit must be a whole number from 1 to 10000 (got "${text}")`);
  return n;
}

/** A workspace by id (`acc_…`) or slug; RESOURCE_NOT_FOUND otherwise. */
async function findWorkspace(ref: string): Promise<Account> {
  const account = await Account.findOne({ where: ref.startsWith('acc_') ? { id: ref } : { slug: ref } });
  if (!account) throw new AppError('RESOURCE_NOT_FOUND', `Workspace ${ref} not found`);
  return account;
}

const workspaceDto = (a: Account) => ({
  accountId: a.id,
  slug: a.slug,
  name: a.name,
  plan: a.plan,
  modules: { fulfillment: a.fulfillmentEnabled, payment: a.paymentEnabled },
  createdAt: a.createdAt.toISOString(),
});

type KeyDto = ReturnType<typeof toApiKeyDto>;

/** Fixed-width columns, for a terminal. */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

const keyRows = (keys: KeyDto[]) =>
  table(
    ['ID', 'NAME', 'ENV', 'ACCESS', 'KEY', 'LAST USED', 'STATUS'],
    keys.map((k) => [k.id, k.name, k.environment, k.access, `${k.prefix}…${k.last4}`, k.lastUsedAt ?? '-', k.revokedAt ? `revoked ${k.revokedAt}` : 'active']),
  );

/** Seconds as the largest two units: `3d 4h`, `12m 5s`. */
function age(seconds: number): string {
  const units: [string, number][] = [['d', 86_400], ['h', 3_600], ['m', 60], ['s', 1]];
  const parts: string[] = [];
  let rest = seconds;
  for (const [unit, size] of units) {
    if (rest >= size || (unit === 's' && parts.length === 0)) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}

const workspaceList: Command<{ limit: number }> = {
  options: { limit: { type: 'string' } },
  parse: (values) => ({ limit: limit(values, 100) }),
  run: async (_sequelize, input) => (await Account.findAll({ order: [['createdAt', 'DESC'], ['id', 'DESC']], limit: input.limit })).map(workspaceDto),
  human: (list: ReturnType<typeof workspaceDto>[]) =>
    list.length === 0 ? 'No workspaces.' : table(['ID', 'SLUG', 'PLAN', 'CREATED', 'NAME'], list.map((w) => [w.accountId, w.slug ?? '-', w.plan, w.createdAt, w.name])),
};

const workspaceShow: Command<{ workspace: string }> = {
  options: {},
  positionals: ['workspace'],
  parse: (values) => ({ workspace: required(values, 'workspace') }),
  async run(_sequelize, input) {
    const account = await findWorkspace(input.workspace);
    const keys = await ApiKey.findAll({ where: { accountId: account.id }, order: [['createdAt', 'DESC'], ['id', 'DESC']] });
    return { ...workspaceDto(account), apiKeys: keys.map(toApiKeyDto) };
  },
  human: (w: ReturnType<typeof workspaceDto> & { apiKeys: KeyDto[] }) =>
    [
      `${w.name} (${w.accountId})`,
      `  slug: ${w.slug ?? '-'}   plan: ${w.plan}   created: ${w.createdAt}`,
      `  modules: fulfillment ${w.modules.fulfillment ? 'on' : 'off'}, payment ${w.modules.payment ? 'on' : 'off'}`,
      '',
      keyRows(w.apiKeys),
    ].join('\n'),
};

const keysList: Command<{ workspace: string; environment?: Environment }> = {
  options: { account: { type: 'string' }, environment: { type: 'string' } },
  parse: (values) => ({
    workspace: required(values, 'account'),
    ...(values.environment === undefined ? {} : { environment: oneOf(values.environment, 'environment', ['test', 'live'] as const) }),
  }),
  async run(_sequelize, input) {
    const account = await findWorkspace(input.workspace);
    const where = { accountId: account.id, ...(input.environment ? { environment: input.environment } : {}) };
    return (await ApiKey.findAll({ where, order: [['createdAt', 'DESC'], ['id', 'DESC']] })).map(toApiKeyDto);
  },
  human: (keys: KeyDto[]) => (keys.length === 0 ? 'No keys.' : keyRows(keys)),
};

const keysRevoke: Command<{ keyId: string }> = {
  options: {},
  positionals: ['key'],
  parse(values) {
    const keyId = required(values, 'key');
    if (!/^key_[0-9A-Za-z]+$/.test(keyId)) throw new UsageError(`the key must be an API key id like key_… (got "${keyId}")`);
    return { keyId };
  },
  run: (sequelize, input) => revokeKeyAsOperator(sequelize, input.keyId),
  human: (key: KeyDto) => `Revoked ${key.id} (${key.name}, ${key.environment} ${key.access}, ${key.prefix}…${key.last4}) at ${key.revokedAt}.`,
};

const webhooksRetry: Command<{ endpointId: string; eventId: string }> = {
  options: {},
  positionals: ['delivery'],
  parse(values) {
    const delivery = parseDeliveryWorkflowId(required(values, 'delivery'));
    if (!delivery) throw new UsageError('the delivery must be its workflow id, webhook-delivery:evt_…:whe_… (as `stuck` and the Temporal UI show it)');
    return delivery;
  },
  async run(_sequelize, input, tools) {
    const tenant = await deliveryTenant(input);
    tools.progress(`retrying the delivery of ${input.eventId} to ${input.endpointId} now (the attempt takes up to 15 s)…`);
    return retryDeliveryNow(await tools.temporal(), tenant, input);
  },
  human: (r: DeliveryRetried) =>
    `Attempt ${r.attempt} of ${r.eventId} to ${r.endpointId}: ${r.outcome}. The delivery is ${r.status}${r.status === 'retrying' ? ' (its next attempt waits its delay from now)' : ''}.`,
};

const webhooksListen: Command<ListenInput> = {
  options: { 'api-key': { type: 'string' }, account: { type: 'string' }, environment: { type: 'string' }, events: { type: 'string' }, 'forward-to': { type: 'string' }, port: { type: 'string' } },
  parse(values) {
    const apiKey = values['api-key'];
    if (apiKey !== undefined && values.account !== undefined) throw new UsageError('pass --api-key or --account, not both');
    if (apiKey !== undefined && !/^sk_(test|live)_/.test(apiKey)) throw new UsageError('--api-key must be a secret key, sk_test_… or sk_live_…');
    if (apiKey !== undefined && values.environment !== undefined) throw new UsageError('--environment goes with --account; a key has its own');
    let forwardTo: URL | undefined;
    if (values['forward-to'] !== undefined) {
      forwardTo = URL.canParse(values['forward-to']) ? new URL(values['forward-to']) : undefined;
      if (!forwardTo || !['http:', 'https:'].includes(forwardTo.protocol)) throw new UsageError(`--forward-to must be an http(s) URL (got "${values['forward-to']}")`);
    }
    const port = Number(values.port ?? 0);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number (got "${values.port}")`);
    return {
      ...(apiKey !== undefined ? { apiKey } : { account: values.account ?? 'demo' }),
      environment: oneOf(values.environment ?? 'test', 'environment', ['test', 'live'] as const),
      events: (values.events ?? '').split(',').map((e) => e.trim()).filter(Boolean),
      ...(forwardTo ? { forwardTo } : {}),
      port,
    };
  },
  run: (sequelize, input, tools) => listenForWebhooks(sequelize, tools.config, input, tools),
  human: describeListenResult,
};

const stuck: Command<{ limit: number }> = {
  options: { limit: { type: 'string' } },
  parse: (values) => ({ limit: limit(values, 100) }),
  run: (sequelize, input, tools) => findStuckWork(sequelize, tools.config, { limit: input.limit, onKind: (kind, found) => tools.progress(`${kind}: ${found} found`) }),
  human: (items: StuckItem[]) =>
    items.length === 0
      ? 'Nothing stuck.'
      : table(
          ['KIND', 'AGE', 'WORKSPACE', 'ENV', 'WORKFLOW', 'ID', 'DETAIL'],
          items.map((i) => [i.kind, age(i.ageSeconds), i.accountId, i.environment, i.workflowId ?? '-', i.id, i.detail]),
        ),
};

const migrateStatus: Command<Record<string, never>> = {
  options: {},
  parse: () => ({}),
  migrates: false,
  run: (sequelize) => migrationStatus(sequelize),
  human: ({ applied, pending }: MigrationStatus) =>
    [`applied (${applied.length}):`, ...applied.map((n) => `  ${n}`), `pending (${pending.length}):`, ...pending.map((n) => `  ${n}`)].join('\n'),
};

async function processStdinText(): Promise<string | undefined> {
  if (process.stdin.isTTY) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  return text === '' ? undefined : text;
}

const PROCESS_IO: CliIo = {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stdinText: processStdinText,
};

const userCreate: Command<{ email: string; workspace: string; role: MembershipRole }> = {
  options: { email: { type: 'string' }, workspace: { type: 'string' }, role: { type: 'string' } },
  parse: (values) => ({
    email: required(values, 'email'),
    workspace: required(values, 'workspace'),
    role: oneOf(required(values, 'role'), 'role', MEMBERSHIP_ROLES),
  }),
  run: async (sequelize, input, tools) => createUserService({ sequelize }).create({ ...input, password: await tools.stdinText() }),
};

const userAddMember: Command<{ email: string; workspace: string; role: MembershipRole }> = {
  options: { email: { type: 'string' }, workspace: { type: 'string' }, role: { type: 'string' } },
  parse: (values) => ({
    email: required(values, 'email'),
    workspace: required(values, 'workspace'),
    role: oneOf(values.role ?? 'member', 'role', MEMBERSHIP_ROLES),
  }),
  run: (sequelize, input) => createUserService({ sequelize }).addMember(input),
};

// Command's methods are bivariant in their input, so each command keeps its own input type here.
const COMMANDS: Record<string, Record<string, Command<unknown>>> = {
  workspace: { create: workspaceCreate, list: workspaceList, show: workspaceShow },
  keys: { create: keysCreate, list: keysList, revoke: keysRevoke },
  modules: { set: modulesSet },
  user: { create: userCreate, 'add-member': userAddMember },
  encryption: { rotate: encryptionRotate },
  webhooks: { retry: webhooksRetry, listen: webhooksListen },
  stuck: { '': stuck },
  migrate: { status: migrateStatus },
};

// isNativeError, not instanceof: a caller in another realm (a jest sandbox) has its own Error.
function isParseArgsError(err: unknown): err is Error {
  const code = (err as { code?: unknown } | null)?.code;
  return types.isNativeError(err) && typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}

/** Parses argv into a command and its input without touching the database. */
function parseCommand(argv: string[]): { command: Command<unknown>; input: unknown; json: boolean } | 'help' {
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h') || argv[0] === 'help') return 'help';
  const json = argv.includes('--json');
  const [group, ...afterGroup] = argv.filter((arg) => arg !== '--json');
  const actions = COMMANDS[group ?? ''];
  if (!actions) throw new UsageError(`unknown command "${group}"; expected one of ${Object.keys(COMMANDS).join(', ')}`);
  // A command without actions (`stuck`) is its group's '' entry.
  const [action, ...rest] = actions[''] ? ['', ...afterGroup] : afterGroup;
  const command = actions[action ?? ''];
  if (!command) {
    const expected = Object.keys(actions).map((a) => `"${group} ${a}"`).join(', ');
    throw new UsageError(action ? `unknown command "${group} ${action}"; expected ${expected}` : `missing action; expected ${expected}`);
  }
  let values: Record<string, string | undefined>;
  try {
    const parsed = parseArgs({ args: rest, options: command.options, strict: true, allowPositionals: command.positionals !== undefined });
    const names = command.positionals ?? [];
    if (parsed.positionals.length > names.length) throw new UsageError(`unexpected argument "${parsed.positionals[names.length]}"`);
    values = { ...(parsed.values as Record<string, string | undefined>), ...Object.fromEntries(names.map((name, i) => [name, parsed.positionals[i]])) };
  } catch (err) {
    if (isParseArgsError(err)) throw new UsageError(err.message);
    throw err;
  }
  return { command, input: command.parse(values), json };
}

/** TEMPORAL_ADDRESS when set; otherwise that of the running `npm start` of this DATA_DIR, if any; else the default. */
function temporalAddress(config: Config, env: NodeJS.ProcessEnv): string {
  if (env.TEMPORAL_ADDRESS) return config.TEMPORAL_ADDRESS;
  const state = config.DATABASE_URL ? null : readStackState(config.DATA_DIR);
  return state && isProcessAlive(state.pid) ? state.temporalAddress : config.TEMPORAL_ADDRESS;
}

function describeError(err: unknown): string {
  if (err instanceof AppError) {
    const details = Array.isArray(err.details) && err.details.length > 0
      ? ` (${err.details.map((d) => (d.field ? `${d.field}: ${d.message}` : d.message)).join('; ')})`
      : '';
    return `${err.message}${details} [${err.code}]`;
  }
  if (err instanceof Error && err.name.startsWith('Sequelize') && err.name.includes('Connection')) {
    return `cannot reach the database: ${err.message}`;
  }
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

export async function main(argv: string[], io: CliIo = PROCESS_IO): Promise<number> {
  let parsed: ReturnType<typeof parseCommand>;
  try {
    parsed = parseCommand(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr(`error: ${err.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (parsed === 'help') {
    io.stdout(`${USAGE}\n`);
    return 0;
  }

  let opened: Sequelize | undefined;
  let connection: Connection | undefined;
  try {
    const loaded = loadConfig(io.env);
    const stackKey = localEncryptionKey(loaded);
    const config = stackKey ? loadConfig({ ...io.env, ENCRYPTION_KEY: stackKey }) : loaded;
    const sequelize = io.sequelize ?? (opened = createDatabase({ url: resolveLocalDatabaseUrl(config), poolMax: 2 }));
    if (parsed.command.migrates !== false) await migrateToLatest(sequelize);
    const tools: Tools = {
      config,
      async temporal() {
        connection ??= await Connection.connect({ address: temporalAddress(config, io.env) });
        // The worker's payloads are encrypted: the CLI reads and sends them through the same codec.
        return createTemporalClient({ connection, namespace: config.TEMPORAL_NAMESPACE, keyRing: requireKeyRing(config) });
      },
      progress: (line) => io.stderr(`${line}\n`),
      stdinText: () => io.stdinText(),
    };
    const result = await parsed.command.run(sequelize, parsed.input, tools);
    const human = parsed.command.human as ((result: unknown) => string) | undefined;
    io.stdout(`${!parsed.json && human ? human(result) : JSON.stringify(result)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof CommandFailed) {
      io.stdout(`${JSON.stringify(err.result)}\n`);
      io.stderr(`error: ${err.message}\n`);
      return 1;
    }
    io.stderr(err instanceof ConfigError ? `${err.message}\n` : `error: ${describeError(err)}\n`);
    return 1;
  } finally {
    await connection?.close().catch(() => undefined);
    await opened?.close().catch(() => undefined);
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`error: ${describeError(err)}\n`);
      process.exitCode = 1;
    },
  );
}
