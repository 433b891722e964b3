import { AsyncLocalStorage } from 'node:async_hooks';
import { Sequelize, type Transaction } from 'sequelize';

/**
 * A request's one transaction (docs/decisions/idempotency.md). While a request with an Idempotency-Key runs, every
 * statement it sends joins the transaction that will also store its response: a model call or query without a
 * transaction through Sequelize's CLS hook, a `sequelize.transaction()` as a savepoint of it (createDatabase), a
 * plain statement on its connection (plain-query.ts). Work that leaves the database after a commit (a workflow
 * start, a signal) waits for the real commit through `afterCommit`.
 */
interface RequestUnit {
  transaction: Transaction;
  /**
   * `rolled_back`: the request was answered without its effect (a 5xx, a 408 mid-upload, a client gone) while its
   * handler may still run: its statements keep naming the finished transaction and fail, rather than commit on
   * their own an effect no stored answer covers.
   */
  state: 'open' | 'committed' | 'rolled_back';
  afterCommit: (() => Promise<void>)[];
}

const units = new AsyncLocalStorage<RequestUnit>();

/** The transaction of the request this code runs for, if it runs in one. */
export function requestTransaction(): Transaction | undefined {
  const unit = units.getStore();
  return unit && unit.state !== 'committed' ? unit.transaction : undefined;
}

/** Runs `work` once the request's transaction has committed; outside one, now. Never runs it after a rollback. */
export async function afterCommit(work: () => Promise<void>): Promise<void> {
  const unit = units.getStore();
  if (!unit || unit.state === 'committed') await work();
  else if (unit.state === 'open') unit.afterCommit.push(work);
}

export interface RequestUnitHandle {
  commit(): Promise<void>;
  rollback(): Promise<void>;
  /** Once committed: the deferred work, outside the unit, in order. Its failure is no failure of the commit. */
  runAfterCommit(): Promise<void>;
}

/**
 * Runs `fn` (the rest of the request) inside `transaction`; the caller ends the unit through the handle, which
 * `fn` receives, when the response is ready.
 */
export function runInRequestTransaction<R>(transaction: Transaction, fn: (handle: RequestUnitHandle) => R): R {
  const unit: RequestUnit = { transaction, state: 'open', afterCommit: [] };
  const handle: RequestUnitHandle = {
    async commit() {
      await transaction.commit();
      unit.state = 'committed';
    },
    async runAfterCommit() {
      const deferred = unit.state === 'committed' ? unit.afterCommit.splice(0) : [];
      await units.exit(async () => {
        for (const work of deferred) await work();
      });
    },
    async rollback() {
      if (unit.state === 'committed') return;
      unit.state = 'rolled_back';
      unit.afterCommit.length = 0;
      if (!(transaction as Transaction & { finished?: string }).finished) await transaction.rollback();
    },
  };
  return units.run(unit, () => fn(handle));
}

/**
 * Sequelize looks up an implicit transaction through a CLS namespace (`get('transaction')`). This one answers the
 * request's transaction and ignores Sequelize's own `set`, so outside a request unit nothing changes: a model call
 * without a transaction inside a `sequelize.transaction()` callback still runs on its own connection, as everywhere else.
 */
const requestNamespace = {
  get: (key: string) => (key === 'transaction' ? requestTransaction() : undefined),
  set: () => undefined,
  run: (fn: (context: object) => unknown) => fn({}),
  bind: <F>(fn: F) => fn,
};

let installed = false;

/** Installs the lookup once per process (Sequelize keeps it on the class). */
export function installRequestTransactionLookup(): void {
  if (installed) return;
  Sequelize.useCLS(requestNamespace);
  installed = true;
}

type TransactionMethod = Sequelize['transaction'];

/**
 * `sequelize.transaction()` inside a request unit opens a savepoint of the request's transaction: its rollback
 * undoes its own work, its "commit" becomes final only with the request's. Elsewhere it is unchanged.
 */
export function nestInRequestTransaction(sequelize: Sequelize): void {
  const begin = sequelize.transaction.bind(sequelize) as (options?: object, work?: (tx: Transaction) => unknown) => Promise<unknown>;
  const nested = (options?: unknown, work?: unknown) => {
    const [opts, cb] = typeof options === 'function' ? [{}, options] : [(options ?? {}) as { transaction?: Transaction }, work];
    const parent = requestTransaction();
    const withParent = parent && opts.transaction === undefined ? { ...opts, transaction: parent } : opts;
    return begin(withParent, cb as ((tx: Transaction) => unknown) | undefined);
  };
  sequelize.transaction = nested as TransactionMethod;
}

/**
 * Runs `work` once `tx`'s effect is committed for good: a savepoint's (a nested transaction's) own commit is only
 * provisional, so the hook goes on its outermost transaction (`parent`, set at runtime, missing from the typings).
 */
export function whenCommitted(tx: Transaction, work: () => void): void {
  type Nested = Transaction & { parent?: Nested };
  let outermost = tx as Nested;
  while (outermost.parent) outermost = outermost.parent;
  outermost.afterCommit(() => work());
}
