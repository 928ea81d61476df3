import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import net from 'node:net';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { createRedisStore } from '../../src/store/redis-store.js';
import { type SharedStore, SharedStoreUnavailable } from '../../src/store/store.js';
import { EVENTUALLY } from '../support/time.js';

/**
 * One contract for the shared-state port, run against every adapter. `open()` returns another
 * client on the same backing store: the same object for memory (one process), a new connection
 * for Redis (what a second ingest process sees).
 */
interface Adapter {
  kind: SharedStore['kind'];
  open(): SharedStore;
  closeAll(): Promise<void>;
  /** Lets `ms` of the store's time pass, for its TTLs and rate-limit windows. */
  passTime(ms: number): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
let unique = 0;
const key = (label: string) => `${label}:${Date.now().toString(36)}:${++unique}`;
/** A TTL the tests wait out; long enough that a set and a get right after it fit in it on a loaded machine. */
const TTL_MS = 500;

function storeContract(name: string, makeAdapter: () => Adapter) {
  describe(`shared store contract: ${name}`, () => {
    let adapter: Adapter;
    let store: SharedStore;
    let other: SharedStore;

    beforeAll(() => {
      adapter = makeAdapter();
      store = adapter.open();
      other = adapter.open();
    });
    afterAll(() => adapter?.closeAll());
    afterEach(() => {
      vi.useRealTimers();
    });

    it('reports its kind, answers ping and broadcasts', async () => {
      expect(store.kind).toBe(adapter.kind);
      await expect(store.ping()).resolves.toBeUndefined();
      await vi.waitFor(() => expect(store.broadcasting).toBe(true), EVENTUALLY);
    });

    describe('get / set / delete', () => {
      it('get of a missing key is null', async () => {
        expect(await store.get(key('missing'))).toBeNull();
      });

      it('set then get returns the value, also through another client', async () => {
        const k = key('set');
        await store.set(k, 'hello', 10_000);
        expect(await store.get(k)).toBe('hello');
        expect(await other.get(k)).toBe('hello');
      });

      it('set overwrites an existing value', async () => {
        const k = key('overwrite');
        await store.set(k, 'one', 10_000);
        await other.set(k, 'two', 10_000);
        expect(await store.get(k)).toBe('two');
      });

      it('keeps arbitrary strings intact (unicode, JSON, empty)', async () => {
        const values = ['', 'ünïcødé ✓', JSON.stringify({ a: [1, 2], b: 'x' }), 'x'.repeat(10_000)];
        for (const v of values) {
          const k = key('value');
          await store.set(k, v, 10_000);
          expect(await other.get(k)).toBe(v);
        }
      });

      it('a value expires after its TTL', async () => {
        const k = key('ttl');
        await store.set(k, 'short', TTL_MS);
        expect(await store.get(k)).toBe('short');
        await adapter.passTime(TTL_MS + 100);
        expect(await store.get(k)).toBeNull();
        expect(await other.get(k)).toBeNull();
      });

      it('set renews the TTL', async () => {
        const k = key('renew');
        await store.set(k, 'v1', TTL_MS);
        await store.set(k, 'v2', 10_000);
        await adapter.passTime(TTL_MS + 100);
        expect(await store.get(k)).toBe('v2');
      });

      it('delete removes the key for every client; deleting a missing key is fine', async () => {
        const k = key('delete');
        await store.set(k, 'v', 10_000);
        await other.delete(k);
        expect(await store.get(k)).toBeNull();
        await expect(store.delete(key('never-set'))).resolves.toBeUndefined();
      });

      it('keys are independent', async () => {
        const k1 = key('indep');
        const k2 = key('indep');
        await store.set(k1, 'a', 10_000);
        expect(await store.get(k2)).toBeNull();
        await store.delete(k2);
        expect(await store.get(k1)).toBe('a');
      });
    });

    describe('setIfAbsent', () => {
      it('sets a missing key and returns true; a second call returns false and keeps the first value', async () => {
        const k = key('nx');
        expect(await store.setIfAbsent(k, 'first', 10_000)).toBe(true);
        expect(await store.setIfAbsent(k, 'second', 10_000)).toBe(false);
        expect(await other.setIfAbsent(k, 'third', 10_000)).toBe(false);
        expect(await store.get(k)).toBe('first');
      });

      it('succeeds again once the key has expired', async () => {
        const k = key('nx-ttl');
        expect(await store.setIfAbsent(k, 'first', TTL_MS)).toBe(true);
        await adapter.passTime(TTL_MS + 100);
        expect(await other.setIfAbsent(k, 'again', 10_000)).toBe(true);
        expect(await store.get(k)).toBe('again');
      });

      it('succeeds again after delete', async () => {
        const k = key('nx-del');
        expect(await store.setIfAbsent(k, 'first', 10_000)).toBe(true);
        await store.delete(k);
        expect(await store.setIfAbsent(k, 'second', 10_000)).toBe(true);
        expect(await store.get(k)).toBe('second');
      });

      it('fails over a key written by set', async () => {
        const k = key('nx-set');
        await store.set(k, 'plain', 10_000);
        expect(await other.setIfAbsent(k, 'nx', 10_000)).toBe(false);
        expect(await store.get(k)).toBe('plain');
      });

      it('only one of many concurrent callers wins, across clients', async () => {
        for (let round = 0; round < 3; round++) {
          const k = key('race');
          const clients = [store, other];
          const results = await Promise.all(Array.from({ length: 24 }, (_, i) => clients[i % 2].setIfAbsent(k, `caller-${i}`, 10_000)));
          expect(results.filter(Boolean)).toHaveLength(1);
          const winner = results.indexOf(true);
          expect(await store.get(k)).toBe(`caller-${winner}`);
        }
      });
    });

    describe('rate limiter', () => {
      it('allows `points` requests per window, then refuses with resetMs > 0', async () => {
        const limiter = store.createRateLimiter({ name: key('rl'), points: 3, windowSeconds: 10 });
        const k = 'api-key-1';
        const decisions = [];
        for (let i = 0; i < 5; i++) decisions.push(await limiter.consume(k));
        expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false]);
        expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0, 0]);
        for (const d of decisions) {
          expect(d.limit).toBe(3);
          expect(d.resetMs).toBeGreaterThan(0);
          expect(d.resetMs).toBeLessThanOrEqual(10_000);
        }
      });

      it('takes a point back on refund, so that only what was not refunded counts', async () => {
        const limiter = store.createRateLimiter({ name: key('rl-refund'), points: 2, windowSeconds: 10 });
        for (let i = 0; i < 5; i++) {
          expect((await limiter.consume('k')).allowed).toBe(true);
          await limiter.refund('k');
        }
        expect((await limiter.consume('k')).remaining).toBe(1);
        expect((await limiter.consume('k')).remaining).toBe(0);
        expect((await limiter.consume('k')).allowed).toBe(false);
        expect((await limiter.consume('other')).allowed).toBe(true);
      });

      it('counts separate keys independently', async () => {
        const limiter = store.createRateLimiter({ name: key('rl'), points: 2, windowSeconds: 10 });
        expect((await limiter.consume('a')).allowed).toBe(true);
        expect((await limiter.consume('a')).allowed).toBe(true);
        expect((await limiter.consume('a')).allowed).toBe(false);
        const b = await limiter.consume('b');
        expect(b.allowed).toBe(true);
        expect(b.remaining).toBe(1);
      });

      it('limiters with different names do not share counts', async () => {
        const one = store.createRateLimiter({ name: key('rl-one'), points: 1, windowSeconds: 10 });
        const two = store.createRateLimiter({ name: key('rl-two'), points: 1, windowSeconds: 10 });
        expect((await one.consume('same')).allowed).toBe(true);
        expect((await one.consume('same')).allowed).toBe(false);
        expect((await two.consume('same')).allowed).toBe(true);
      });

      it('limiters of the same name share counts across clients (one budget for every process)', async () => {
        const name = key('rl-shared');
        const here = store.createRateLimiter({ name, points: 4, windowSeconds: 10 });
        const there = other.createRateLimiter({ name, points: 4, windowSeconds: 10 });
        const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? here : there).consume('shared-key')));
        expect(results.filter((d) => d.allowed)).toHaveLength(4);
        expect((await here.consume('shared-key')).allowed).toBe(false);
        expect((await there.consume('shared-key')).allowed).toBe(false);
      });

      it('allows again once the window has passed', async () => {
        const limiter = store.createRateLimiter({ name: key('rl-window'), points: 1, windowSeconds: 1 });
        expect((await limiter.consume('k')).allowed).toBe(true);
        const refused = await limiter.consume('k');
        expect(refused.allowed).toBe(false);
        expect(refused.resetMs).toBeGreaterThan(0);
        expect(refused.resetMs).toBeLessThanOrEqual(1000);
        await adapter.passTime(refused.resetMs + 150);
        const again = await limiter.consume('k');
        expect(again.allowed).toBe(true);
        expect(again.remaining).toBe(0);
      });
    });

    describe('publish / subscribe', () => {
      it('delivers a message to the subscribers of its channel on every client, the publisher included', async () => {
        const channel = key('ch');
        const mine: (string | null)[] = [];
        const theirs: (string | null)[] = [];
        const elsewhere: (string | null)[] = [];
        const done = key('done');
        const doneMine: (string | null)[] = [];
        const doneTheirs: (string | null)[] = [];
        const offs = [
          store.subscribe(channel, (m) => mine.push(m)),
          other.subscribe(channel, (m) => theirs.push(m)),
          other.subscribe(key('ch'), (m) => elsewhere.push(m)),
          store.subscribe(done, (m) => doneMine.push(m)),
          other.subscribe(done, (m) => doneTheirs.push(m)),
        ];
        await subscribed(store, other);
        await store.publish(channel, 'lnk:1');
        expect(mine.filter(Boolean)).toEqual(['lnk:1']); // its own subscribers at once
        await other.publish(channel, 'lnk:2');
        // Messages of different publishers may arrive in either order.
        const heard = (list: (string | null)[]) => list.filter(Boolean).sort();
        await vi.waitFor(() => {
          expect(heard(mine)).toEqual(['lnk:1', 'lnk:2']);
          expect(heard(theirs)).toEqual(['lnk:1', 'lnk:2']);
        }, EVENTUALLY);
        // And only once each. A client hears the messages of a connection in the order the shared
        // store took them: once each has heard a later message of the other, no copy of lnk:1 or
        // lnk:2 is still on its way.
        await other.publish(done, 'after, from the other');
        await store.publish(done, 'after, from the publisher');
        await vi.waitFor(() => {
          expect(doneMine).toContain('after, from the other');
          expect(doneTheirs).toContain('after, from the publisher');
        }, EVENTUALLY);
        expect(heard(mine)).toEqual(['lnk:1', 'lnk:2']);
        expect(heard(theirs)).toEqual(['lnk:1', 'lnk:2']);
        expect(elsewhere.filter(Boolean)).toEqual([]);
        for (const off of offs) off();
      });

      it('stops delivering once unsubscribed', async () => {
        const channel = key('ch');
        const kept: (string | null)[] = [];
        const dropped: (string | null)[] = [];
        const off = other.subscribe(channel, (m) => dropped.push(m));
        const keep = other.subscribe(channel, (m) => kept.push(m));
        await subscribed(other);
        off();
        await store.publish(channel, 'after');
        // Both listeners are of one client, which hands a message to all of them at once.
        await vi.waitFor(() => expect(kept.filter(Boolean)).toEqual(['after']), EVENTUALLY);
        expect(dropped.filter(Boolean)).toEqual([]);
        keep();
      });
    });
  });
}

/**
 * Redis confirms a SUBSCRIBE asynchronously, and a message published before that is not heard: a
 * client broadcasts once every channel of its listeners is confirmed.
 */
const subscribed = (...stores: SharedStore[]) =>
  vi.waitFor(() => expect(stores.map((s) => s.broadcasting)).toEqual(stores.map(() => true)), EVENTUALLY);

storeContract('memory', () => {
  const store = createMemoryStore();
  return {
    kind: 'memory',
    open: () => store,
    closeAll: () => store.close(),
    // Its TTLs and windows are read from Date.now(): the test moves that clock, and puts the real one back after the test.
    async passTime(ms) {
      if (!vi.isFakeTimers()) vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + ms);
    },
  };
});

const REDIS_URL = process.env.REDIS_URL;

/** A raw node-redis client for what the tests inspect or do behind the adapter's back. */
async function rawClient(url: string) {
  const raw = createClient({ url });
  raw.on('error', () => {});
  await raw.connect();
  return raw;
}

/** Milliseconds `work` took to settle, and how. */
async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; result: PromiseSettledResult<T> }> {
  const started = performance.now();
  const [result] = await Promise.allSettled([work()]);
  return { ms: performance.now() - started, result };
}

/** Settled as rejected with SharedStoreUnavailable. */
function unavailable(result: PromiseSettledResult<unknown>) {
  expect(result.status).toBe('rejected');
  expect((result as PromiseRejectedResult).reason).toBeInstanceOf(SharedStoreUnavailable);
}

/**
 * A redis-server of the test's own on a free port, to kill, stop and restart; the shared Redis
 * at REDIS_URL is never touched that way.
 */
interface PrivateRedis {
  url: string;
  start(): Promise<void>;
  /** SIGKILL, as in a crash: the kernel closes every connection. */
  kill(): Promise<void>;
  /** SIGSTOP: connections stay open and commands are taken, but nothing is answered. */
  pause(): void;
  resume(): void;
}

const spawned = new Set<ChildProcess>();

/**
 * A free port below the ephemeral range (32768 and up on Linux), so that while the server is down
 * no other process's outgoing connection or `listen(0)` takes it, and a client reconnecting to
 * it cannot end up connected to itself.
 */
async function privatePort(): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer().once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
    if (attempt > 50) throw new Error('no free port for a private redis-server');
  }
}

async function privateRedis(): Promise<PrivateRedis> {
  const port = await privatePort();
  let server: ChildProcess | undefined;
  return {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
        stdio: 'ignore',
      });
      spawned.add(server);
      await answersOn(port);
    },
    async kill() {
      if (!server) return;
      const s = server;
      server = undefined;
      await stopProcess(s);
    },
    pause() {
      server?.kill('SIGSTOP');
    },
    resume() {
      server?.kill('SIGCONT');
    },
  };
}

async function stopProcess(child: ChildProcess): Promise<void> {
  spawned.delete(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL'); // also ends a stopped process
  await exited;
}

/** Resolves once a redis-server on `port` answers PING. */
async function answersOn(port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.setTimeout(500, () => socket.destroy());
      socket.once('connect', () => socket.write('PING\r\n'));
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString().startsWith('+PONG'));
      });
      socket.once('close', () => resolve(false));
      socket.once('error', () => {});
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not start`);
    await sleep(20);
  }
}

describe.skipIf(!REDIS_URL)('redis adapter', () => {
  const prefix = `svc-test-${randomBytes(6).toString('hex')}:`;
  const opened: SharedStore[] = [];
  /** A store closed after the test file, also when a test fails half-way. */
  const open = (url: string, keyPrefix = prefix) => {
    const s = createRedisStore(url, keyPrefix);
    opened.push(s);
    return s;
  };
  afterAll(async () => {
    await Promise.all(opened.map((s) => s.close()));
    await Promise.all([...spawned].map(stopProcess));
  });

  storeContract('redis', () => ({
    kind: 'redis',
    open: () => open(REDIS_URL!),
    async closeAll() {
      await Promise.all(opened.map((s) => s.close()));
    },
    // Redis keeps its own time: a TTL there runs out only as real time passes, so this waits it out.
    passTime: (ms) => sleep(ms),
  }));

  it('keeps channels under its prefix too, and tells subscribers (null) when the subscription connection drops', async () => {
    const mine = open(REDIS_URL!);
    const theirs = open(REDIS_URL!, `${prefix}other:`);
    const raw = await rawClient(REDIS_URL!);
    try {
      const heard: (string | null)[] = [];
      const overheard: (string | null)[] = [];
      mine.subscribe('changes', (m) => heard.push(m));
      theirs.subscribe('changes', (m) => overheard.push(m));
      await vi.waitFor(() => expect(heard).toContain(null), EVENTUALLY); // subscribed and ready
      await vi.waitFor(() => expect(theirs.broadcasting).toBe(true), EVENTUALLY);
      heard.length = 0;
      await theirs.publish('changes', 'not yours');
      await mine.publish('changes', 'yours');
      await vi.waitFor(() => expect(heard).toEqual(['yours']), EVENTUALLY);
      expect(overheard.filter(Boolean)).toEqual(['not yours']);

      const clients = String(await raw.sendCommand(['CLIENT', 'LIST', 'TYPE', 'pubsub']));
      const id = new RegExp(`id=(\\d+) [^\\n]*name=${prefix}subscriber`).exec(clients)?.[1]; // the prefix is hex and dashes
      expect(id).toBeDefined();
      await raw.sendCommand(['CLIENT', 'KILL', 'ID', id!]);
      await vi.waitFor(() => expect(heard.slice(1)).toContain(null), EVENTUALLY);
      // Back and subscribed again: messages flow once more.
      heard.length = 0;
      await vi.waitFor(async () => {
        await mine.publish('changes', 'again');
        expect(heard).toContain('again');
      }, EVENTUALLY);
    } finally {
      await Promise.all([mine.close(), theirs.close()]);
      raw.destroy();
    }
  });

  it('keeps every key under its prefix, rate-limit counters included, invisible to a store with another prefix', async () => {
    const mine = open(REDIS_URL!);
    const theirs = open(REDIS_URL!, `${prefix}other:`);
    const raw = await rawClient(REDIS_URL!);
    const limiterName = `scoped-${randomBytes(4).toString('hex')}`;
    try {
      await mine.set('scoped', 'yes', 10_000);
      expect(await theirs.get('scoped')).toBeNull();
      expect(await theirs.setIfAbsent('scoped', 'theirs', 10_000)).toBe(true);
      expect(await mine.get('scoped')).toBe('yes');
      expect(await raw.get(`${prefix}scoped`)).toBe('yes');
      const ttl = await raw.pTTL(`${prefix}scoped`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(10_000);

      await mine.createRateLimiter({ name: limiterName, points: 5, windowSeconds: 10 }).consume('someone');
      expect(await raw.exists(`${prefix}rl:${limiterName}:someone`)).toBe(1);
      expect(await raw.keys(`*rl:${limiterName}*`)).toEqual([`${prefix}rl:${limiterName}:someone`]);
    } finally {
      await Promise.all([mine.close(), theirs.close()]);
      // Remove what this run left behind.
      const keys = await raw.keys(`${prefix}*`);
      if (keys.length) await raw.del(keys);
      raw.destroy();
    }
  });

  describe('faults (a private redis-server)', () => {
    // Generous: a command that fails fast takes milliseconds, a stuck one STORE_COMMAND_TIMEOUT_MS.
    const FAST_MS = 1_000;

    it('hears invalidations once Redis comes up, when it was down as the process started; meanwhile commands fail at once', async () => {
      const redis = await privateRedis();
      const early = open(redis.url);
      const heard: (string | null)[] = [];
      early.subscribe('changes', (m) => heard.push(m));
      // Settles once the store has found Redis down (its first connection attempt failed).
      await Promise.allSettled([early.ping()]);
      const down = await timed(() => early.get('k'));
      unavailable(down.result);
      expect(down.ms).toBeLessThan(FAST_MS);
      expect(early.broadcasting).toBe(false);

      await redis.start();
      const late = open(redis.url);
      await vi.waitFor(() => expect(heard).toContain(null), { timeout: 5_000 }); // subscribed once Redis answered
      await vi.waitFor(
        async () => {
          await late.publish('changes', 'after the outage');
          expect(heard).toContain('after the outage');
        },
        { timeout: 5_000 },
      );
      await vi.waitFor(() => expect(early.broadcasting).toBe(true), { timeout: 5_000 });
    });

    it('a killed server: commands fail at once, limits fall back to each process, broadcasting stops; all works again once it is back', async () => {
      const redis = await privateRedis();
      await redis.start();
      const store = open(redis.url);
      const other = open(redis.url);
      const heard: (string | null)[] = [];
      store.subscribe('changes', (m) => heard.push(m));
      await vi.waitFor(() => expect(store.broadcasting).toBe(true), EVENTUALLY);
      const limiter = store.createRateLimiter({ name: 'down', points: 2, windowSeconds: 60 });
      expect((await limiter.consume('k')).allowed).toBe(true);
      expect((await limiter.consume('k')).allowed).toBe(true);
      expect((await limiter.consume('k')).allowed).toBe(false); // counted in Redis

      await redis.kill();
      await vi.waitFor(() => expect(store.broadcasting).toBe(false), EVENTUALLY);
      await vi.waitFor(() => expect(heard).toEqual([null, null]), EVENTUALLY); // subscribed, then dropped
      for (const command of [
        (): Promise<unknown> => store.get('k'),
        () => store.set('k', 'v', 10_000),
        () => store.setIfAbsent('k', 'v', 10_000),
        () => store.delete('k'),
        () => store.publish('elsewhere', 'lost'),
        () => store.ping(),
      ]) {
        const { ms, result } = await timed(command);
        unavailable(result);
        expect(ms).toBeLessThan(FAST_MS);
      }
      // Each process on its own: the same budget, counted from zero in memory.
      const { ms, result } = await timed(() => Promise.all([1, 2, 3].map(() => limiter.consume('k'))));
      expect(ms).toBeLessThan(FAST_MS);
      expect(result.status).toBe('fulfilled');
      const decisions = (result as PromiseFulfilledResult<Awaited<ReturnType<typeof limiter.consume>>[]>).value;
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, false]);
      expect(decisions[2].resetMs).toBeGreaterThan(0);

      await redis.start();
      const back = performance.now();
      await vi.waitFor(() => Promise.all([store.ping(), other.ping()]), { timeout: 5_000, interval: 50 });
      expect(performance.now() - back).toBeLessThan(3_000); // reconnect attempts are at most 500 ms apart
      await store.set('k', 'again', 10_000);
      expect(await other.get('k')).toBe('again');
      await vi.waitFor(() => expect(store.broadcasting).toBe(true), { timeout: 5_000 });
      expect(heard).toEqual([null, null, null]); // and subscribed again
      await other.publish('changes', 'after the restart');
      await vi.waitFor(() => expect(heard.at(-1)).toBe('after the restart'), EVENTUALLY);
      // Redis counts again (it restarted empty).
      expect((await limiter.consume('k')).remaining).toBe(1);
    });

    it('a server that stops answering: commands fail within the timeout, later ones at once, until it answers again', async () => {
      const redis = await privateRedis();
      await redis.start();
      const store = open(redis.url);
      const limited = open(redis.url);
      const closing = open(redis.url);
      const heard: (string | null)[] = [];
      store.subscribe('changes', (m) => heard.push(m));
      await Promise.all([store.ping(), limited.ping(), closing.ping()]);
      await vi.waitFor(() => expect(store.broadcasting).toBe(true), EVENTUALLY);
      expect(heard).toEqual([null]); // subscribed
      const limiter = limited.createRateLimiter({ name: 'hung', points: 1, windowSeconds: 60 });
      await limiter.consume('k');

      redis.pause();
      try {
        // A limiter alone (the API's path: no other store command) still answers, from memory.
        const limit = await timed(() => limiter.consume('k'));
        expect(limit.ms).toBeLessThan(FAST_MS);
        expect(limit.result.status).toBe('fulfilled');
        expect((limit.result as PromiseFulfilledResult<{ allowed: boolean }>).value.allowed).toBe(true);

        // Commands already written to the stuck connection fail within the timeout.
        const stuck = await timed(() => Promise.allSettled([store.get('k'), store.set('k', 'v', 10_000), store.ping()]));
        expect(stuck.ms).toBeLessThan(FAST_MS);
        for (const r of (stuck.result as PromiseFulfilledResult<PromiseSettledResult<unknown>[]>).value) unavailable(r);
        // Its subscriber connection is no better off: listeners hear that they may miss messages.
        expect(store.broadcasting).toBe(false);
        expect(heard).toEqual([null, null]);

        // Later ones do not wait out a timeout each.
        const later = await timed(async () => {
          for (let i = 0; i < 5; i++) unavailable((await Promise.allSettled([store.get('k')]))[0]);
        });
        expect(later.ms).toBeLessThan(FAST_MS);

        // Closing a store with a command stuck in flight does not hang either.
        const inFlight = Promise.allSettled([closing.get('k')]);
        const closed = await timed(() => closing.close());
        expect(closed.ms).toBeLessThan(FAST_MS);
        unavailable((await inFlight)[0]);
      } finally {
        redis.resume();
      }
      await vi.waitFor(() => Promise.all([store.ping(), limited.ping()]), { timeout: 5_000, interval: 50 });
      await store.set('k', 'answered', 10_000);
      expect(await store.get('k')).toBe('answered');
      await vi.waitFor(() => expect(store.broadcasting).toBe(true), { timeout: 5_000 });
      expect(heard).toEqual([null, null, null]); // subscribed again
      await limited.publish('changes', 'answered');
      await vi.waitFor(() => expect(heard.at(-1)).toBe('answered'), EVENTUALLY);
    });

    it('close() returns promptly when Redis is unreachable', async () => {
      const port = await privatePort(); // nothing listens there
      const store = createRedisStore(`redis://127.0.0.1:${port}`, prefix);
      store.subscribe('changes', () => {});
      // Settles once the store has found Redis down: it is trying to reconnect when closed.
      await Promise.allSettled([store.ping()]);
      const { ms } = await timed(() => store.close());
      expect(ms).toBeLessThan(FAST_MS);
    });

    it('sends the commands of one event-loop turn to Redis together', async () => {
      const redis = await privateRedis();
      await redis.start();
      const store = open(redis.url);
      const raw = await rawClient(redis.url);
      try {
        const limiter = store.createRateLimiter({ name: 'batch', points: 100, windowSeconds: 60 });
        await store.ping();
        const reads = async () => Number(/total_reads_processed:(\d+)/.exec(await raw.info('stats'))![1]);
        const before = await reads();
        // What 20 click requests arriving together ask: 60 commands.
        await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            Promise.all([limiter.consume(`ip-${i}`), store.get(`link-${i}`), store.setIfAbsent(`visit-${i}`, 'c', 10_000)]),
          ),
        );
        // One read for them all (a few at most, should the kernel split the write), one for INFO.
        expect((await reads()) - before).toBeLessThanOrEqual(4);
      } finally {
        raw.destroy();
      }
    });
  });
});
