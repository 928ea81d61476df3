import { randomBytes } from 'node:crypto';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import { createClient } from 'redis';
import { wrapLimiter } from './rate-limit-decision.js';
import { type RateLimiter, type SharedStore, SharedStoreUnavailable, STORE_COMMAND_TIMEOUT_MS } from './store.js';

type Client = ReturnType<typeof createClient>;

/** The longest pause between two connection attempts while Redis is down. */
const MAX_RECONNECT_DELAY_MS = 500;

const ignore = () => {};

/**
 * Redis adapter: shared by every ingest process pointed at the same Redis. Every key, rate-limit
 * counter and channel it uses is under `keyPrefix`.
 */
export function createRedisStore(url: string, keyPrefix = 'svc:'): SharedStore {
  let closed = false;
  const client: Client = createClient({
    url,
    // A command while the connection is down fails at once rather than waiting for it to return.
    disableOfflineQueue: true,
    // node-redis's command timeout only covers commands not yet written to the socket (a stopped
    // server takes the writes and never answers), and its AbortSignal per command costs several
    // times what the command itself does; the deadline below covers every command instead.
    commandOptions: { timeout: undefined },
    // On by default with RESP3: one more handshake command, and timeouts relaxed during Redis
    // Enterprise maintenance that the deadline below would not honour anyway.
    maintNotifications: 'disabled',
    socket: {
      connectTimeout: 2 * STORE_COMMAND_TIMEOUT_MS,
      reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, MAX_RECONNECT_DELAY_MS),
    },
  });
  // Failures surface on the commands that need Redis (and on /readyz); without a listener the
  // 'error' event, emitted on every failed connection attempt, would crash the process.
  client.on('error', ignore);
  client.connect().catch(ignore);

  // Until the first connection attempt has ended, Redis is not known to be down: commands wait
  // for it (up to STORE_COMMAND_TIMEOUT_MS after the start), so a short-lived CLI process or the
  // first requests after a start do not fail for nothing.
  let starting: Promise<void> | undefined = new Promise<void>((resolve) => {
    const started = () => {
      client.off('ready', started).off('error', started);
      clearTimeout(timer);
      starting = undefined;
      resolve();
    };
    const timer = setTimeout(started, STORE_COMMAND_TIMEOUT_MS).unref();
    client.on('ready', started).on('error', started);
  });

  // Subscriptions need a connection of their own, opened on the first subscribe. This client's
  // own listeners hear its messages at once, when published, and skip the copy Redis sends back
  // (marked with the sender's id).
  const listeners = new Map<string, Set<(message: string | null) => void>>();
  const sender = randomBytes(8).toString('hex');
  let subscriber: Client | undefined;
  // Every channel is confirmed on the subscriber's current connection...
  let subscribed = false;
  // ...and no channel added since is still waiting for its confirmation.
  let pendingSubscribes = 0;
  const deliver = (channel: string, message: string | null) => {
    for (const listener of listeners.get(channel) ?? []) listener(message);
  };
  /** Tells every listener that messages may have been missed. */
  const missed = () => {
    if (!subscribed) return; // already told, when the connection last dropped
    subscribed = false;
    for (const channel of listeners.keys()) deliver(channel, null);
  };
  const onMessage = (raw: string, channel: string) => {
    const cut = raw.indexOf('\n');
    if (raw.slice(0, cut) !== sender) deliver(channel.slice(keyPrefix.length), raw.slice(cut + 1));
  };
  const subscribeOn = (connection: Client, channels: string[]) => {
    pendingSubscribes++;
    return connection
      .subscribe(
        channels.map((c) => keyPrefix + c),
        onMessage,
      )
      .finally(() => pendingSubscribes--);
  };
  const subscriberConnection = () => {
    if (subscriber) return subscriber;
    const connection: Client = client.duplicate({ name: `${keyPrefix}subscriber` });
    connection.on('error', ignore);
    // node-redis resubscribes only the channels Redis once confirmed, so every channel is
    // subscribed anew each time the connection is ready (also when Redis was down at start);
    // once Redis confirms, listeners are told that messages may have been missed meanwhile.
    connection.on('ready', () => {
      if (closed) return;
      subscribeOn(connection, [...listeners.keys()]).then(() => {
        subscribed = true;
        for (const channel of listeners.keys()) deliver(channel, null);
      }, ignore);
    });
    // Emitted as soon as the connection drops (and before each later attempt).
    connection.on('reconnecting', missed);
    connection.connect().catch(ignore);
    subscriber = connection;
    return subscriber;
  };

  // A connection that takes commands but does not answer (a stopped or overloaded server, a
  // half-open socket) is dropped once a command has waited STORE_COMMAND_TIMEOUT_MS: that rejects
  // everything in flight on it at once, and until a new connection is ready, commands fail at
  // once instead of each waiting out its own timeout. node-redis writes the commands of one
  // event-loop turn together, so they share one deadline (one timer per turn, not per command).
  let turn: { pending: number; timer: NodeJS.Timeout } | undefined;
  const endTurn = () => {
    turn = undefined;
  };
  const unanswered = () => {
    // Not ready: the connection already dropped, which rejected its commands, and is reopening.
    if (closed || !client.isReady) return;
    reopen(client);
    // The subscriber's connection is likely just as stuck, and would go unnoticed: nothing is
    // ever asked of it.
    if (subscriber?.isReady) {
      reopen(subscriber);
      missed();
    }
  };
  const joinTurn = () => {
    if (turn === undefined || turn.pending === 0) {
      const t = { pending: 0, timer: setTimeout(() => t.pending > 0 && unanswered(), STORE_COMMAND_TIMEOUT_MS) };
      turn = t;
      setImmediate(endTurn);
    }
    turn.pending++;
    return turn;
  };
  const leaveTurn = (t: NonNullable<typeof turn>) => {
    if (--t.pending === 0) clearTimeout(t.timer);
  };

  /** Runs `work`, which sends commands on `client`, within the command deadline. */
  async function bounded<T>(work: () => Promise<T>): Promise<T> {
    if (starting && !client.isReady) await starting;
    // node-redis refuses at once while not ready, and a rate limiter answers from its insurance.
    if (!client.isReady) return work();
    const t = joinTurn();
    try {
      return await work();
    } finally {
      leaveTurn(t);
    }
  }

  /** A store command: whatever makes it fail, to the caller the store is unavailable. */
  async function command<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await bounded(work);
    } catch (err) {
      throw new SharedStoreUnavailable(`The shared store is unavailable: ${(err as Error)?.message ?? err}`, { cause: err });
    }
  }

  const limiters = new Map<string, RateLimiter>();

  return {
    kind: 'redis',
    get broadcasting() {
      return client.isReady && (subscriber === undefined || (subscriber.isReady && subscribed && pendingSubscribes === 0));
    },
    get(key) {
      return command(() => client.get(keyPrefix + key));
    },
    async set(key, value, ttlMs) {
      await command(() => client.set(keyPrefix + key, value, { expiration: { type: 'PX', value: ttlMs } }));
    },
    async setIfAbsent(key, value, ttlMs) {
      return (
        (await command(() => client.set(keyPrefix + key, value, { expiration: { type: 'PX', value: ttlMs }, condition: 'NX' }))) === 'OK'
      );
    },
    async delete(key) {
      await command(() => client.del(keyPrefix + key));
    },
    createRateLimiter({ name, points, windowSeconds }) {
      // Limiters of the same name on one store share their per-process fallback too.
      const id = `${name}\u0000${points}\u0000${windowSeconds}`;
      let limiter = limiters.get(id);
      if (!limiter) {
        const shared = new RateLimiterRedis({
          storeClient: client,
          useRedisPackage: true,
          // While the connection is down, the insurance answers without asking node-redis.
          rejectIfRedisNotReady: true,
          keyPrefix: `${keyPrefix}rl:${name}`,
          points,
          duration: windowSeconds,
          // While Redis cannot answer, each process applies the limit on its own.
          insuranceLimiter: new RateLimiterMemory({ keyPrefix: `rl:${name}`, points, duration: windowSeconds }),
        });
        limiter = wrapLimiter(shared, points, bounded);
        limiters.set(id, limiter);
      }
      return limiter;
    },
    async publish(channel, message) {
      deliver(channel, message);
      await command(() => client.publish(keyPrefix + channel, `${sender}\n${message}`));
    },
    subscribe(channel, listener) {
      if (closed) return ignore;
      let set = listeners.get(channel);
      if (!set) {
        set = new Set();
        listeners.set(channel, set);
        const connection = subscriberConnection();
        // Otherwise subscribed with every other channel once the connection is ready.
        if (connection.isReady) subscribeOn(connection, [channel]).catch(ignore);
      }
      set.add(listener);
      return () => set.delete(listener);
    },
    async ping() {
      await command(() => client.ping());
    },
    async close() {
      closed = true;
      listeners.clear();
      limiters.clear();
      await Promise.all([client, subscriber].map((c) => c && closeWithin(c, STORE_COMMAND_TIMEOUT_MS)));
    },
  };
}

/**
 * Drops the connection, which rejects every command in flight or queued on it, and opens a new
 * one. Only for a ready connection: one that is not is already reconnecting.
 */
function reopen(connection: Client): void {
  connection.destroy();
  connection.connect().catch(ignore);
}

/** Closes gracefully (commands in flight are answered), or drops the connection after `ms`. */
async function closeWithin(connection: Client, ms: number): Promise<void> {
  const timer = setTimeout(() => connection.destroy(), ms);
  // Rejects when the client is not open (never connected, or already closed).
  await connection.close().catch(ignore);
  clearTimeout(timer);
}
