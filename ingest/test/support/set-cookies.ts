import type { Response } from 'supertest';

export interface SetCookie {
  value: string;
  attrs: Record<string, string | true>;
}

/** The Set-Cookie headers of a response by cookie name, attributes keyed in lower case. */
export function setCookies(res: Response): Record<string, SetCookie> {
  const raw = res.headers['set-cookie'] as unknown as string[] | undefined;
  const out: Record<string, SetCookie> = {};
  for (const line of raw ?? []) {
    const [pair, ...attrs] = line.split(';').map((s) => s.trim());
    const eq = pair.indexOf('=');
    out[pair.slice(0, eq)] = {
      value: pair.slice(eq + 1),
      attrs: Object.fromEntries(
        attrs.map((a) => {
          const i = a.indexOf('=');
          return i < 0 ? [a.toLowerCase(), true] : [a.slice(0, i).toLowerCase(), a.slice(i + 1)];
        }),
      ),
    };
  }
  return out;
}
