import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { createRedisStore } from '../../src/store/redis-store.js';
import type { SharedStore } from '../../src/store/store.js';

/**
 * One contract for the shared-state port, run against every adapter. `open()` returns another
 * client on the same backing store: the same object for memory (one process), a new connection
 * for Redis (what a second ingest process sees).
 */
interface Adapter {
  kind: SharedStore['kind'];
  open(): SharedStore;
  closeAll(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let unique = 0;
const key = (label: string) => `${label}:${Date.now().toString(36)}:${++unique}`;

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

    it('reports its kind and answers ping', async () => {
      expect(store.kind).toBe(adapter.kind);
      await expect(store.ping()).resolves.toBeUndefined();
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
        await store.set(k, 'short', 80);
        expect(await store.get(k)).toBe('short');
        await sleep(200);
        expect(await store.get(k)).toBeNull();
        expect(await other.get(k)).toBeNull();
      });

      it('set renews the TTL', async () => {
        const k = key('renew');
        await store.set(k, 'v1', 80);
        await store.set(k, 'v2', 10_000);
        await sleep(200);
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
        expect(await store.setIfAbsent(k, 'first', 80)).toBe(true);
        await sleep(200);
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
        await sleep(refused.resetMs + 150);
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
        const offs = [store.subscribe(channel, (m) => mine.push(m)), other.subscribe(channel, (m) => theirs.push(m)), other.subscribe(key('ch'), (m) => elsewhere.push(m))];
        await subscribed();
        await store.publish(channel, 'lnk:1');
        expect(mine.filter(Boolean)).toEqual(['lnk:1']); // its own subscribers at once
        await other.publish(channel, 'lnk:2');
        // Messages of different publishers may arrive in either order.
        const heard = (list: (string | null)[]) => list.filter(Boolean).sort();
        await vi.waitFor(() => {
          expect(heard(mine)).toEqual(['lnk:1', 'lnk:2']);
          expect(heard(theirs)).toEqual(['lnk:1', 'lnk:2']);
        });
        await sleep(100); // and only once each
        expect(heard(mine)).toEqual(['lnk:1', 'lnk:2']);
        expect(heard(theirs)).toEqual(['lnk:1', 'lnk:2']);
        expect(elsewhere.filter(Boolean)).toEqual([]);
        offs.forEach((off) => off());
      });

      it('stops delivering once unsubscribed', async () => {
        const channel = key('ch');
        const kept: (string | null)[] = [];
        const dropped: (string | null)[] = [];
        const off = other.subscribe(channel, (m) => dropped.push(m));
        const keep = other.subscribe(channel, (m) => kept.push(m));
        await subscribed();
        off();
        await store.publish(channel, 'after');
        await vi.waitFor(() => expect(kept.filter(Boolean)).toEqual(['after']));
        expect(dropped.filter(Boolean)).toEqual([]);
        keep();
      });
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Redis confirms a SUBSCRIBE asynchronously; a published message before that is not heard. */
const subscribed = () => sleep(100);

storeContract('memory', () => {
  const store = createMemoryStore();
  return { kind: 'memory', open: () => store, closeAll: () => store.close() };
});

const REDIS_URL = process.env.REDIS_URL;

describe.skipIf(!REDIS_URL)('redis adapter', () => {
  const prefix = `svc-test-${randomBytes(6).toString('hex')}:`;
  const opened: SharedStore[] = [];

  storeContract('redis', () => ({
    kind: 'redis',
    open() {
      const s = createRedisStore(REDIS_URL!, prefix);
      opened.push(s);
      return s;
    },
    async closeAll() {
      await Promise.all(opened.map((s) => s.close()));
    },
  }));

  it('keeps channels under its prefix too, and tells subscribers (null) when the subscription connection drops', async () => {
    const mine = createRedisStore(REDIS_URL!, prefix);
    const theirs = createRedisStore(REDIS_URL!, `${prefix}other:`);
    const raw = new Redis(REDIS_URL!);
    try {
      const heard: (string | null)[] = [];
      const overheard: (string | null)[] = [];
      mine.subscribe('changes', (m) => heard.push(m));
      theirs.subscribe('changes', (m) => overheard.push(m));
      await vi.waitFor(() => expect(heard).toContain(null)); // subscribed and ready
      heard.length = 0;
      await theirs.publish('changes', 'not yours');
      await mine.publish('changes', 'yours');
      await vi.waitFor(() => expect(heard).toEqual(['yours']));
      expect(overheard.filter(Boolean)).toEqual(['not yours']);

      const clients = String(await raw.call('CLIENT', 'LIST', 'TYPE', 'pubsub'));
      const id = new RegExp(`id=(\\d+) [^\\n]*name=${prefix}subscriber`).exec(clients)?.[1]; // the prefix is hex and dashes
      expect(id).toBeDefined();
      await raw.client('KILL', 'ID', id!);
      await vi.waitFor(() => expect(heard.slice(1)).toContain(null));
      // Back and subscribed again: messages flow once more.
      heard.length = 0;
      await vi.waitFor(async () => {
        await mine.publish('changes', 'again');
        expect(heard).toContain('again');
      });
    } finally {
      await Promise.all([mine.close(), theirs.close()]);
      raw.disconnect();
    }
  });

  it('hears invalidations once Redis comes up, when it was down as the process started', async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const early = createRedisStore(url, prefix);
    const heard: (string | null)[] = [];
    early.subscribe('changes', (m) => heard.push(m));
    await sleep(300); // connection attempts fail meanwhile
    const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const late = createRedisStore(url, prefix);
    try {
      await vi.waitFor(() => expect(heard).toContain(null), { timeout: 10_000 }); // subscribed once Redis answered
      await vi.waitFor(async () => {
        await late.publish('changes', 'after the outage');
        expect(heard).toContain('after the outage');
      }, { timeout: 5_000 });
    } finally {
      await Promise.all([early.close(), late.close()]);
      server.kill();
    }
  });

  it('keeps every key under its prefix, invisible to a store with another prefix', async () => {
    const mine = createRedisStore(REDIS_URL!, prefix);
    const theirs = createRedisStore(REDIS_URL!, `${prefix}other:`);
    const raw = new Redis(REDIS_URL!);
    try {
      await mine.set('scoped', 'yes', 10_000);
      expect(await theirs.get('scoped')).toBeNull();
      expect(await theirs.setIfAbsent('scoped', 'theirs', 10_000)).toBe(true);
      expect(await mine.get('scoped')).toBe('yes');
      expect(await raw.get(`${prefix}scoped`)).toBe('yes');
      const ttl = await raw.pttl(`${prefix}scoped`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(10_000);
    } finally {
      await Promise.all([mine.close(), theirs.close()]);
      // Remove what this run left behind.
      const keys = await raw.keys(`${prefix}*`);
      if (keys.length) await raw.del(...keys);
      raw.disconnect();
    }
  });
});
