import { afterEach, describe, expect, it, vi } from 'vitest';
import { post } from '../src/transport';
import { VERSION } from './support/page';

afterEach(() => vi.unstubAllGlobals());

function answer(status: number, text: string) {
  return { status, json: async () => JSON.parse(text) } as unknown as Response;
}

describe('post', () => {
  it('POSTs the body and v (the package version) as a JSON string with no headers (text/plain, no preflight) and keepalive', async () => {
    const fetch = vi.fn(async () => answer(200, '{"success":true,"data":{"a":1}}'));
    vi.stubGlobal('fetch', fetch);
    expect(await post('https://api.example.com/svc', '/v1/track/click', { key: 'pk_1', n: 2 })).toEqual([
      200,
      { success: true, data: { a: 1 } },
    ]);
    expect(fetch).toHaveBeenCalledTimes(1);
    const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('https://api.example.com/svc/v1/track/click');
    expect(init).toEqual({ method: 'POST', body: `{"key":"pk_1","n":2,"v":"${VERSION}"}`, keepalive: true });
    // A string body without headers is sent as text/plain;charset=UTF-8: a CORS "simple" request.
    expect(new Request('https://api.example.com/', init).headers.get('content-type')).toMatch(/^text\/plain/);
  });

  it('works with a relative api (same-site proxy)', async () => {
    const fetch = vi.fn(async () => answer(201, '{}'));
    vi.stubGlobal('fetch', fetch);
    await post('/svc', '/v1/track/signup', {});
    expect((fetch.mock.calls[0] as unknown[])[0]).toBe('/svc/v1/track/signup');
  });

  it('an error status comes back with its body', async () => {
    vi.stubGlobal('fetch', async () => answer(409, '{"success":false,"error":{"message":"Customer already exists"}}'));
    expect(await post('https://a.test', '/v1/track/signup', {})).toEqual([
      409,
      { success: false, error: { message: 'Customer already exists' } },
    ]);
  });

  it('a body that is not JSON reads as {}', async () => {
    vi.stubGlobal('fetch', async () => answer(502, '<html>Bad gateway</html>'));
    expect(await post('https://a.test', '/v1/track/click', {})).toEqual([502, {}]);
  });

  it('a network failure answers [0, {}] and does not reject', async () => {
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('Failed to fetch');
    });
    expect(await post('https://a.test', '/v1/track/click', {})).toEqual([0, {}]);
    vi.stubGlobal('fetch', () => {
      throw new TypeError('synchronous failure');
    });
    expect(await post('https://a.test', '/v1/track/click', {})).toEqual([0, {}]);
  });
});
