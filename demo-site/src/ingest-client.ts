// biome-ignore-all lint/suspicious/noExplicitAny: the answers are the API's JSON objects, read field by field by the pages
/** The demo merchant's server-side client of the svc API: the secret key never leaves this process. */
export interface IngestClient {
  get<T = any>(path: string): Promise<T>;
  post<T = any>(path: string, body: object): Promise<T>;
  put<T = any>(path: string, body: object): Promise<T>;
}

export class IngestError extends Error {
  constructor(
    readonly status: number,
    readonly body: any,
  ) {
    super(typeof body?.error === 'string' ? body.error : (body?.error?.message ?? `svc answered ${status}`));
  }
}

export function ingestClient(baseUrl: string, secretKey: string): IngestClient {
  async function call(method: string, path: string, body?: object): Promise<any> {
    const res = await fetch(baseUrl + path, {
      method,
      headers: { Authorization: `Bearer ${secretKey}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = await res.json().catch(() => ({}));
    if (!res.ok) throw new IngestError(res.status, json);
    return json;
  }
  return {
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body),
    put: (path, body) => call('PUT', path, body),
  };
}
