/**
 * Operator CLI: `npm run cli -- <group> <action> [options]`.
 *
 * Every command prints exactly one JSON object on stdout (so scripts can pipe it into `jq`); messages go
 * to stderr. Exit codes: 0 done, 1 refused or failed (validation by the service, unknown workspace,
 * configuration, database), 2 bad or missing arguments.
 *
 * Database: DATABASE_URL, or else the embedded PostgreSQL of a running `npm start` with the same
 * DATA_DIR (read from $DATA_DIR/stack.json). Migrations run first, so a fresh database works.
 */
import { parseArgs } from 'node:util';
import type { Sequelize } from 'sequelize';
import { createDatabase } from '../db/connection';
import { migrateToLatest } from '../db/migrate';
import { resealColumn, SEALED_COLUMNS } from '../db/sealed-columns';
import { Account, MEMBERSHIP_ROLES, type Environment, type KeyAccess, type MembershipRole, type Plan } from '../db/models';
import { issueKey, toApiKeyDto } from '../domain/api-keys';
import { MODULES, createModuleService } from '../domain/modules';
import { createUserService } from '../domain/users';
import { createWorkspaceService } from '../domain/workspaces';
import { ConfigError, loadConfig, requireKeyRing } from '../lib/config';
import { createCryptoBox } from '../lib/crypto-box';
import { AppError } from '../lib/errors';
import { PLANS } from '../lib/plans';
import { resolveLocalDatabaseUrl } from './lib/local-stack';

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

interface Command<T> {
  options: StringOptions;
  /** Turns the parsed flags into the command's input; throws UsageError for bad values. */
  parse(values: Record<string, string | undefined>): T;
  run(sequelize: Sequelize, input: T): Promise<unknown>;
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
  async run(sequelize, { batchSize }) {
    const box = createCryptoBox(requireKeyRing(loadConfig()));
    const keyId = box.keyRing.current.id;
    const columns = [];
    for (const target of SEALED_COLUMNS) {
      columns.push(
        await resealColumn(sequelize, target, {
          currentPrefix: `v2.${keyId}.`,
          reseal: (sealed) => box.reseal(sealed),
          batchSize,
          onProgress: ({ table, column, done, found }) => process.stderr.write(`${table}.${column}: ${done}/${found}\n`),
        }),
      );
    }
    const unreadable = columns.reduce((n, c) => n + c.unreadable.length, 0);
    const result = { keyId, rewritten: columns.reduce((n, c) => n + c.rewritten, 0), unreadable, columns };
    if (unreadable > 0) throw new CommandFailed(`${unreadable} sealed value(s) open with none of the configured keys`, result);
    return result;
  },
};

/** A password piped in (its one trailing line break dropped); undefined at a terminal or with nothing piped. */
async function passwordFromStdin(): Promise<string | undefined> {
  if (process.stdin.isTTY) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  return text === '' ? undefined : text;
}

const userCreate: Command<{ email: string; workspace: string; role: MembershipRole }> = {
  options: { email: { type: 'string' }, workspace: { type: 'string' }, role: { type: 'string' } },
  parse: (values) => ({
    email: required(values, 'email'),
    workspace: required(values, 'workspace'),
    role: oneOf(required(values, 'role'), 'role', MEMBERSHIP_ROLES),
  }),
  run: async (sequelize, input) => createUserService({ sequelize }).create({ ...input, password: await passwordFromStdin() }),
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
  workspace: { create: workspaceCreate },
  keys: { create: keysCreate },
  modules: { set: modulesSet },
  user: { create: userCreate, 'add-member': userAddMember },
  encryption: { rotate: encryptionRotate },
};

function isParseArgsError(err: unknown): err is Error {
  const code = (err as { code?: unknown } | null)?.code;
  return err instanceof Error && typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}

/** Parses argv into a command and its input without touching the database. */
function parseCommand(argv: string[]): { command: Command<unknown>; input: unknown } | 'help' {
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h') || argv[0] === 'help') return 'help';
  const [group, action, ...rest] = argv;
  const actions = COMMANDS[group ?? ''];
  if (!actions) throw new UsageError(`unknown command "${group}"; expected one of ${Object.keys(COMMANDS).join(', ')}`);
  const command = actions[action ?? ''];
  if (!command) {
    const expected = Object.keys(actions).map((a) => `"${group} ${a}"`).join(', ');
    throw new UsageError(action ? `unknown command "${group} ${action}"; expected ${expected}` : `missing action; expected ${expected}`);
  }
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({ args: rest, options: command.options, strict: true, allowPositionals: false }) as {
      values: Record<string, string | undefined>;
    });
  } catch (err) {
    if (isParseArgsError(err)) throw new UsageError(err.message);
    throw err;
  }
  return { command, input: command.parse(values) };
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

export async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseCommand>;
  try {
    parsed = parseCommand(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`error: ${err.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (parsed === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }

  let sequelize: Sequelize | undefined;
  try {
    const config = loadConfig();
    sequelize = createDatabase({ url: resolveLocalDatabaseUrl(config), poolMax: 2 });
    await migrateToLatest(sequelize);
    const result = await parsed.command.run(sequelize, parsed.input);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof CommandFailed) {
      process.stdout.write(`${JSON.stringify(err.result)}\n`);
      process.stderr.write(`error: ${err.message}\n`);
      return 1;
    }
    process.stderr.write(err instanceof ConfigError ? `${err.message}\n` : `error: ${describeError(err)}\n`);
    return 1;
  } finally {
    await sequelize?.close().catch(() => undefined);
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
