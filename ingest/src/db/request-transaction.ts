import { AsyncLocalStorage } from 'node:async_hooks';
import { CompiledQuery, type DatabaseConnection, type Dialect, type Driver, type QueryResult, type TransactionSettings } from 'kysely';

/**
 * One SQL transaction around everything a request does.
 *
 * A request that carries an `Idempotency-Key` must commit its changes and the record of its
 * answer together, or neither (ingest/docs/api.md#idempotency). Rather than threading a transaction
 * through every service, the database's driver routes every statement issued while such a
 * request runs (found through AsyncLocalStorage) to that request's one connection, inside its
 * one transaction. A service's own `db.transaction()` becomes a savepoint there, so its
 * rollback still undoes only its own work. Statements outside any request scope use the pool
 * as usual, so requests without the header pay nothing but one lookup per statement.
 */

interface Scope {
  readonly connection: DatabaseConnection;
  /** What the driver hands out inside the scope; releasing it keeps the connection. */
  readonly handle: ScopedConnection;
  /** False once committed or rolled back: late statements then go to the pool again. */
  open: boolean;
  readonly savepoints: string[];
  savepointSeq: number;
  readonly afterCommit: (() => void)[];
}

const scopes = new AsyncLocalStorage<Scope>();

/**
 * Request transactions open right now. On Node 20 a storage in use turns on async hooks for
 * every promise of the process, which slows every request (its awaits cost two to four
 * times more); the storage is therefore disabled whenever no request transaction is open, so
 * requests without an Idempotency-Key run as if it did not exist.
 */
let openScopes = 0;

const openScope = (): Scope | undefined => {
  const scope = scopes.getStore();
  return scope?.open ? scope : undefined;
};

/** True while the caller runs inside a request's SQL transaction. */
export const inRequestTransaction = (): boolean => openScope() !== undefined;

/**
 * Runs `effect` once the caller's SQL work is committed: at once outside a request
 * transaction, after its commit inside one, and never if it rolls back. For what must not
 * happen before the change is visible to others: cache invalidations, waking the mailer.
 */
export function afterCommit(effect: () => void): void {
  const scope = openScope();
  if (scope) scope.afterCommit.push(effect);
  else effect();
}

const raw = (statement: string) => CompiledQuery.raw(statement);

/**
 * The request's connection as services see it. Statements run one at a time, and each one
 * that may write runs under a savepoint of its own: a failed statement (say a unique
 * violation that a service turns into a 409) then leaves the transaction usable, as it would
 * be outside a request transaction, so the service can still read what it needs for its
 * answer. Reads skip the savepoint: they cost the same as anywhere else.
 */
class ScopedConnection implements DatabaseConnection {
  private tail: Promise<unknown> = Promise.resolve();
  /** Set when the transaction ends: statements still queued then must not reach the connection. */
  private ended = false;
  constructor(private readonly inner: DatabaseConnection) {}

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const guarded = () => {
      // A statement queued behind the COMMIT or ROLLBACK would otherwise run outside the
      // transaction, on a connection that may already belong to another request.
      if (this.ended) return Promise.reject(new Error('The request transaction has ended'));
      return work();
    };
    const run = this.tail.then(guarded, guarded);
    this.tail = run.catch(() => {});
    return run;
  }

  /**
   * Refuses every statement from now on, and resolves once the one running (if any) is done:
   * then the transaction can be ended on the connection with nothing of the request after it.
   */
  close(): Promise<void> {
    this.ended = true;
    return this.tail.then(() => {});
  }

  /** A statement of the transaction's own bookkeeping (savepoints), in turn with the others. */
  control(statement: string): Promise<void> {
    return this.serial(async () => {
      await this.inner.executeQuery(raw(statement));
    });
  }

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (query.query.kind === 'SelectQueryNode') return this.serial(() => this.inner.executeQuery<R>(query));
    return this.serial(async () => {
      await this.inner.executeQuery(raw('savepoint svc_statement'));
      try {
        const result = await this.inner.executeQuery<R>(query);
        await this.inner.executeQuery(raw('release savepoint svc_statement'));
        return result;
      } catch (err) {
        // Back to before the statement, and the savepoint let go: a request that recovers from
        // many failed statements does not pile up savepoints.
        await this.inner.executeQuery(raw('rollback to savepoint svc_statement')).catch(() => {});
        await this.inner.executeQuery(raw('release savepoint svc_statement')).catch(() => {});
        throw err;
      }
    });
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery(query, chunkSize);
  }
}

/** Wraps a dialect's driver so that statements issued inside a request scope use its transaction. */
class RequestScopedDriver implements Driver {
  constructor(readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  acquireConnection(): Promise<DatabaseConnection> {
    const scope = openScope();
    return scope ? Promise.resolve(scope.handle) : this.inner.acquireConnection();
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    if (!(connection instanceof ScopedConnection)) await this.inner.releaseConnection(connection);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const scope = scopeOf(connection);
    if (!scope) return this.inner.beginTransaction(connection, settings);
    const name = `svc_sp_${++scope.savepointSeq}`;
    await scope.handle.control(`savepoint ${name}`);
    scope.savepoints.push(name);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const scope = scopeOf(connection);
    if (!scope) return this.inner.commitTransaction(connection);
    const name = scope.savepoints.pop();
    if (name) await scope.handle.control(`release savepoint ${name}`);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const scope = scopeOf(connection);
    if (!scope) return this.inner.rollbackTransaction(connection);
    const name = scope.savepoints.pop();
    if (name) await scope.handle.control(`rollback to savepoint ${name}`);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

function scopeOf(connection: DatabaseConnection): Scope | undefined {
  if (!(connection instanceof ScopedConnection)) return undefined;
  const scope = openScope();
  if (!scope || scope.handle !== connection) throw new Error('A request transaction was used outside its request');
  return scope;
}

const drivers = new WeakMap<object, RequestScopedDriver>();

/**
 * The dialect with its driver wrapped; `register` is called with the Kysely instance built on
 * it, so that `runInRequestTransaction` can find the driver.
 */
export function requestScopedDialect(dialect: Dialect): { dialect: Dialect; register(db: object): void } {
  const driver = new RequestScopedDriver(dialect.createDriver());
  return {
    dialect: {
      createAdapter: () => dialect.createAdapter(),
      createDriver: () => driver,
      createQueryCompiler: () => dialect.createQueryCompiler(),
      createIntrospector: (db) => dialect.createIntrospector(db),
    },
    register: (db) => drivers.set(db, driver),
  };
}

export interface RequestTransaction {
  /** Runs `work` inside the transaction: every statement it issues, directly or not, joins it. */
  run<T>(work: () => T): T;
  /** Remembers this point of the transaction (a savepoint), for `undoToMark`. */
  mark(): Promise<void>;
  /**
   * Undoes everything since `mark` (also a transaction that a failed statement left aborted),
   * keeping the transaction open, with what it did before the mark and its locks.
   */
  undoToMark(): Promise<void>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

/**
 * Opens the request's transaction on a connection of its own. The caller must end it with
 * `commit` or `rollback`; effects queued with `afterCommit` run after a commit.
 */
export async function beginRequestTransaction(db: object): Promise<RequestTransaction> {
  const driver = drivers.get(db);
  if (!driver) throw new Error('This database was not opened with a request-scoped driver');
  if (openScope()) throw new Error('A request transaction is already open');
  const connection = await driver.inner.acquireConnection();
  try {
    await driver.inner.beginTransaction(connection, {});
  } catch (err) {
    await driver.inner.releaseConnection(connection);
    throw err;
  }
  const scope: Scope = {
    connection,
    handle: new ScopedConnection(connection),
    open: true,
    savepoints: [],
    savepointSeq: 0,
    afterCommit: [],
  };
  openScopes++;

  const end = async (how: 'commit' | 'rollback') => {
    if (!scope.open) return;
    scope.open = false;
    if (--openScopes === 0) scopes.disable();
    await scope.handle.close();
    try {
      if (how === 'commit') await driver.inner.commitTransaction(connection);
      else await driver.inner.rollbackTransaction(connection);
    } finally {
      await driver.inner.releaseConnection(connection);
    }
  };

  return {
    run: (work) => scopes.run(scope, work),
    mark: () => scope.handle.control('savepoint svc_request'),
    async undoToMark() {
      await scope.handle.control('rollback to savepoint svc_request');
      // The services' savepoints inside it are gone with it, and so is what their changes
      // were to set off after the commit.
      scope.savepoints.length = 0;
      scope.afterCommit.length = 0;
    },
    async commit() {
      await end('commit');
      // Outside the scope: an effect that touches SQL must use the pool, not this connection.
      for (const effect of scope.afterCommit.splice(0)) scopes.exit(effect);
    },
    async rollback() {
      scope.afterCommit.length = 0;
      await end('rollback').catch(() => {});
    },
  };
}
