/** The HTTP status and the parsed JSON body ({} when there is none). */
export type Answer = [status: number, body: any];

/**
 * POSTs JSON as text/plain, a "simple" request for which browsers send no CORS preflight.
 * Every body carries `v`, the script's version, so the server knows which build sent it.
 * keepalive lets the click finish when the visitor leaves the page at once. A network failure
 * answers status 0.
 */
export async function post(api: string, path: string, body: object): Promise<Answer> {
  try {
    const res = await fetch(api + path, { method: 'POST', body: JSON.stringify({ ...body, v: SVC_VERSION }), keepalive: true });
    return [res.status, await res.json().catch(() => ({}))];
  } catch {
    return [0, {}];
  }
}
