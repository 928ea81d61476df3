import { AsyncLocalStorage } from 'node:async_hooks';
import http, { type ServerResponse } from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import { parse } from 'csv-parse/sync';
import { type KyselyPlugin, type RootOperationNode, sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { exportPath } from '../../src/dashboard/exports.routes.js';
import { WALK_PAGE_SIZE as PAGE } from '../../src/http/list-walk.js';
import { dashboardUser, PASSWORD } from '../support/dashboard.js';
import { type ApiObject, createProgram } from '../support/factories.js';
import { PARTNER_FIELDS } from '../support/fields.js';
import { useTestApp } from '../support/fixture.js';
import { createTestApp, STORAGE, type TestApp } from '../support/harness.js';
import { EVENTUALLY } from '../support/time.js';

/**
 * The partners export (src/dashboard/exports.routes.ts) of 10,000 rows, made with one SQL insert
 * (ingest/docs/dashboard.md#csv-exports), downloaded over a socket the test reads itself, slower
 * than the server writes: every row once, in the list's order, and a page of SQL is read only
 * when the kernel has taken all but a page of the rows read before; a client that leaves stops
 * the reading; SQL failing halfway cuts the download.
 */

const ROWS = 10_000;
/**
 * A note on each partner, so that the file (about 6 MB) is more than the kernel buffers of a
 * loopback connection hold for a reader that does not read (Linux: up to 4 MB sent, plus the
 * receiver's window): past them, only the process could hold what a writer that ignores
 * backpressure sends, and the bound below would fail.
 */
const NOTE = 'n'.repeat(400);

/** Waits, a turn of the event loop at a time, until `done()`: for what the server does, never a fixed time. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setImmediate(resolve));
}

/** A select from partners with a limit: a page of the partner list, as listPartners reads it. */
function isPartnerPage(node: RootOperationNode): boolean {
  if (node.kind !== 'SelectQueryNode' || !node.limit) return false;
  return JSON.stringify(node.from?.froms ?? []).includes('"name":"partners"');
}

/** What the test does around each page of the partner list that the app reads from SQL. */
interface PageHooks {
  /** Just before the page's query is sent. */
  before(): void;
  /** Once its rows are in, before the service gets them. */
  after(rows: number): Promise<void>;
}

/** An HTTP/1.1 response as it came on the wire: its head, and its chunked body with where each byte of it was on the wire. */
function dechunk(wire: Buffer) {
  const headerEnd = wire.indexOf('\r\n\r\n') + 4;
  const pieces: { wireStart: number; data: Buffer }[] = [];
  for (let at = headerEnd; ; ) {
    const lineEnd = wire.indexOf('\r\n', at);
    const size = Number.parseInt(wire.subarray(at, lineEnd).toString('latin1'), 16);
    if (!(size > 0)) break;
    pieces.push({ wireStart: lineEnd + 2, data: wire.subarray(lineEnd + 2, lineEnd + 2 + size) });
    at = lineEnd + 2 + size + 2;
  }
  return {
    head: wire.subarray(0, headerEnd).toString('latin1'),
    body: Buffer.concat(pieces.map((p) => p.data)),
    /** How many bytes of the body the first `wireBytes` bytes on the wire hold. */
    bodyBytesWithin: (wireBytes: number) => pieces.reduce((n, p) => n + Math.max(0, Math.min(p.data.length, wireBytes - p.wireStart)), 0),
  };
}

describe('dashboard CSV export of 10,000 rows', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1 });
  /** The app again over the same storage, its SQL watched through `hooks`, served on a port of its own. */
  let watched: TestApp;
  let hooks: PageHooks = { before: () => {}, after: async () => {} };
  let server: http.Server;
  /** The server's side of the test's current download. */
  let response: ServerResponse | undefined;
  /**
   * Which download a query is made for: the hooks see only the current one's pages. A download a
   * test has left may still finish a page after the next test began, and must not count there.
   */
  const downloadOf = new AsyncLocalStorage<number>();
  let downloads = 0;
  const logged: { level: number; msg: string }[] = [];
  let program: ApiObject;
  /** The partners' ids in the list's order (newest first), as SQL has them. */
  let ids: string[];
  let cookie: string;

  beforeAll(async () => {
    program = await createProgram(t, org);
    // The partners' events (the triggers of migration 0009) are not what this file tests, and
    // would be four fifths of the insert's time: replica mode leaves them out for this transaction.
    await t.storage.db.transaction().execute(async (trx) => {
      await sql`set local session_replication_role = replica`.execute(trx);
      await sql`
        insert into partners (id, organization_id, program_id, group_id, status, first_name, last_name, email, payout_method,
                              payout_details, internal_note, completed_onboarding, first_customer_email_active,
                              new_customer_email_active, payout_paid_email_active, created_at, updated_at)
        select 'part_bulk' || lpad(g::text, 6, '0'), ${org.organization_id}, ${program.id}, ${program.default_group_id}, 'active',
               'Bulk', 'Partner ' || g, 'bulk' || g || '@partners.example', 'paypal', jsonb_build_object('email', 'bulk' || g || '@pay.example'),
               ${NOTE}, true, true, true, true, now() - g * interval '1 second', now()
          from generate_series(1, ${ROWS}) as g`.execute(trx);
    });
    const rows = await sql<{ id: string }>`
      select id from partners where program_id = ${program.id} and deleted_at is null order by created_at desc, id desc`.execute(
      t.storage.db,
    );
    ids = rows.rows.map((r) => r.id);

    const pages = new WeakSet<object>();
    const watch: KyselyPlugin = {
      transformQuery({ node, queryId }) {
        if (isPartnerPage(node) && downloadOf.getStore() === downloads) {
          pages.add(queryId);
          hooks.before();
        }
        return node;
      },
      async transformResult({ result, queryId }) {
        if (pages.has(queryId)) await hooks.after(result.rows.length);
        return result;
      },
    };
    const logger = pino({ level: 'info' }, { write: (line: string) => logged.push(JSON.parse(line)) });
    watched = await createTestApp({ storage: { ...t.storage, db: t.storage.db.withPlugin(watch) }, logger });
    server = http.createServer((req, res) => {
      response = res;
      downloadOf.run(downloads, () => watched.app(req, res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

    const email = await dashboardUser(t, org);
    const signIn = await t.request.post('/dashboard/sign-in').type('form').send({ email, password: PASSWORD });
    expect(signIn.status).toBe(303);
    cookie = signIn.headers['set-cookie'][0].split(';')[0];
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await watched?.close();
  });

  /** A raw HTTP/1.1 GET of the program's partners export, signed in: the test reads every byte of the wire itself. */
  function download(): Socket {
    response = undefined;
    downloads++;
    const socket = net.connect((server.address() as AddressInfo).port, '127.0.0.1');
    socket.write(
      `GET ${exportPath({ id: program.id }, 'partners')} HTTP/1.1\r\nHost: localhost\r\nCookie: ${cookie}\r\nConnection: close\r\n\r\n`,
    );
    return socket;
  }

  /** Resolves when the server's side of the current download has closed (sent in full, or cut). */
  const serverDone = () => until(() => response?.closed === true);

  it('sends every row once, in the list order, reading a page of SQL only when the kernel has taken all but a page of the rows read before', async () => {
    const reads: { rowsRead: number; wireBytesTaken: number }[] = [];
    let rowsRead = 0;
    let reading = false;
    hooks = {
      before() {
        const socket = response!.socket!;
        // What the kernel has taken from the socket: written, less what still waits in the process.
        reads.push({ rowsRead, wireBytesTaken: socket.bytesWritten - socket.writableLength });
        reading = true;
      },
      async after(rows) {
        reading = false;
        rowsRead += Math.min(rows, PAGE); // a page's query reads one row more, to know whether more follow
      },
    };
    const client = download();
    const wire: Buffer[] = [];
    // A reader slower than the server: it takes its next chunk only when the server is stuck on
    // the socket (no page being read, and bytes the kernel has not taken), or has sent everything.
    for await (const chunk of client) {
      wire.push(chunk);
      await until(() => !response?.socket || response.writableEnded || (!reading && response.socket.writableLength > 0));
    }

    const { head, body, bodyBytesWithin } = dechunk(Buffer.concat(wire));
    expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\nContent-Type: text\/csv; charset=utf-8\r\n/);
    const records: string[][] = parse(body, { bom: true });
    expect(records[0]).toEqual([...PARTNER_FIELDS]);
    expect(records.slice(1).map((r) => r[0])).toEqual(ids);
    expect(ids).toHaveLength(ROWS);
    // The API's list ends where the file does.
    const api = await t.request.get('/v1/partners').set(org.auth).query({ program_id: program.id, order: 'asc', limit: 2 });
    expect(records.slice(-2).map((r) => r[0])).toEqual(api.body.data.map((p: ApiObject) => p.id).reverse());

    // Where each data row ends in the body (the bulk rows hold no line break of their own).
    const rowEnds: number[] = [];
    for (let at = body.indexOf('\r\n'); at >= 0; at = body.indexOf('\r\n', at + 2)) rowEnds.push(at + 2);
    rowEnds.shift();
    expect(rowEnds).toHaveLength(ROWS);
    expect(reads).toHaveLength(ROWS / PAGE);
    // Rows read from SQL but not yet taken by the kernel when each page is read: what the process holds.
    const held = reads.map(({ rowsRead, wireBytesTaken }) => {
      const taken = bodyBytesWithin(wireBytesTaken);
      return rowsRead - rowEnds.filter((end) => end <= taken).length;
    });
    expect(Math.max(...held)).toBeLessThanOrEqual(PAGE);
  });

  it('stops reading SQL when the client leaves', async () => {
    let pages = 0;
    hooks = {
      before: () => pages++,
      // The second page reaches the service once the client has left: no page after it may be read.
      after: async () => {
        if (pages === 2) await until(() => response?.closed === true);
      },
    };
    const client = download();
    await new Promise((resolve) => client.once('data', resolve));
    client.destroy();
    await serverDone();
    await vi.waitFor(
      () => expect(logged.at(-1)).toMatchObject({ level: 30, msg: 'CSV download left by the client before its end' }),
      EVENTUALLY,
    );
    expect(pages).toBeLessThanOrEqual(2);
  });

  it.skipIf(STORAGE !== 'postgres')('cuts the download when SQL fails halfway, and logs it', async () => {
    let pages = 0;
    let lockTaken = false;
    // The second page reaches the service once partners are locked: the queries after it wait on the lock.
    hooks = {
      before: () => pages++,
      after: async () => {
        if (pages === 2) await until(() => lockTaken);
      },
    };
    const client = download();
    const wire: Buffer[] = [];
    const ended = new Promise<string>((resolve) => {
      client.on('data', (chunk: Buffer) => wire.push(chunk));
      client.on('end', () => resolve('end'));
      client.on('error', (err) => resolve(err.message));
    });
    await until(() => pages === 2);
    // A failover halfway: the export's next query waits on a lock, and its connection is terminated.
    await t.storage.db.connection().execute(async (conn) => {
      await sql`begin`.execute(conn);
      await sql`lock table partners in access exclusive mode`.execute(conn);
      lockTaken = true;
      try {
        await vi.waitFor(async () => {
          const { rows } = await sql<{ pid: number }>`
            select pid from pg_stat_activity
             where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`.execute(conn);
          expect(rows).toHaveLength(1);
          await sql`select pg_terminate_backend(${rows[0].pid})`.execute(conn);
        }, EVENTUALLY);
        await serverDone();
      } finally {
        await sql`commit`.execute(conn);
      }
    });
    await ended;
    const text = Buffer.concat(wire).toString('latin1');
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    // The chunked body never got its last, empty chunk: no client can take it for a whole file.
    expect(text.endsWith('\r\n0\r\n\r\n')).toBe(false);
    expect(logged.at(-1)).toMatchObject({ level: 50, msg: 'CSV download failed while it was sent; the connection was cut' });
    expect(pages).toBe(2);
  });
});
