import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
} from 'kysely';
import type { Db } from '../../src/db/database.js';

type Row = Record<string, unknown>;

/**
 * The SQL a repository function sends, for the snapshot tests in ingest/test/sql: the function
 * runs for real against a Kysely whose driver compiles every statement with the PostgreSQL
 * compiler, writes it down and answers with `rows` (one empty row unless told otherwise, so that
 * `executeTakeFirstOrThrow` is satisfied). Nothing reaches a database. A query change then shows
 * in review as a change to its SQL text.
 *
 * Parameters that change from run to run are written as placeholders: a Date as `<date>`.
 */
export async function sqlOf(work: (db: Db) => Promise<unknown>, rows: (sql: string) => Row[] = () => [{}]): Promise<string> {
  const statements: string[] = [];
  const connection: DatabaseConnection = {
    async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
      statements.push(render(query));
      const answer = rows(query.sql) as R[];
      return { rows: answer, numAffectedRows: BigInt(answer.length) };
    },
    streamQuery() {
      throw new Error('sqlOf: streaming is not recorded');
    },
  };
  const driver: Driver = {
    init: async () => {},
    acquireConnection: async () => connection,
    beginTransaction: async () => {
      statements.push('begin');
    },
    commitTransaction: async () => {
      statements.push('commit');
    },
    rollbackTransaction: async () => {
      statements.push('rollback');
    },
    releaseConnection: async () => {},
    destroy: async () => {},
  };
  const db = new Kysely<never>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => driver,
      createIntrospector: (k) => new PostgresIntrospector(k),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  }) as unknown as Db;
  await work(db);
  return statements.join(';\n\n');
}

function render(query: CompiledQuery): string {
  const params = query.parameters.map((p) => (p instanceof Date ? '<date>' : p));
  return params.length ? `${query.sql}\n-- ${JSON.stringify(params)}` : query.sql;
}
