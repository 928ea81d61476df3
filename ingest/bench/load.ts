import autocannon from 'autocannon';

export interface LoadResult {
  requests: number;
  ok: number;
  failed: number;
  rps: number;
  p50: number;
  p99: number;
  /** Answers by HTTP status. */
  statuses: Record<string, number>;
}

export interface LoadOptions {
  url: string;
  connections: number;
  /** Seconds to run; or `amount` requests in all, however long they take. */
  duration?: number;
  amount?: number;
  headers: Record<string, string>;
  /** The body of the n-th request (each may differ: charge ids…). */
  body: (n: number) => string;
  /** POST unless told. */
  method?: 'POST' | 'PUT';
  /** The path of the n-th request, when it is not the url's. */
  path?: (n: number) => string;
  /** Headers of the n-th request, on top of `headers`. */
  vary?: (n: number) => Record<string, string>;
}

/** Drives one endpoint with autocannon (HTTP/1.1 keep-alive, `connections` at once) for `duration` seconds. */
export async function load(o: LoadOptions): Promise<LoadResult> {
  let n = 0;
  const result = await autocannon({
    url: o.url,
    method: o.method ?? 'POST',
    connections: o.connections,
    ...(o.amount ? { amount: o.amount } : { duration: o.duration }),
    headers: o.headers,
    requests: [
      {
        setupRequest: (req: any) => {
          const i = n++;
          return {
            ...req,
            ...(o.path ? { path: o.path(i) } : {}),
            body: o.body(i),
            headers: { ...req.headers, ...o.headers, ...(o.vary?.(i) ?? {}) },
          };
        },
      },
    ],
  });
  const ok = result['2xx'];
  return {
    requests: result.requests.total,
    ok,
    failed: result.non2xx + result.errors + result.timeouts,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    statuses: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s?.count ?? 0])),
  };
}

/** Latency of GET requests sent one after another (for list pages): p50/p99 in ms. */
export async function timeGets(url: string, headers: Record<string, string>, count: number): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`GET ${url} → ${res.status}`);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => Number(times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(2));
  return { p50: at(0.5), p99: at(0.99) };
}

/** A count once the requests still in flight when a load stopped have landed: the same answer twice, 300 ms apart. */
export async function settled(read: () => Promise<number>): Promise<number> {
  let last = await read();
  for (;;) {
    await new Promise((r) => setTimeout(r, 300));
    const now = await read();
    if (now === last) return now;
    last = now;
  }
}
