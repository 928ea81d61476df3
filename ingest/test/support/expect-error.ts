import type { Response } from 'supertest';
import { expect } from 'vitest';

/** No stack trace, file path or SQL text may reach a client in an error body. */
export function expectNoLeak(res: Response): void {
  const text = JSON.stringify(res.body);
  expect(text).not.toMatch(/\bat .+:\d+:\d+/);
  expect(text).not.toMatch(/node_modules|\.ts\b|\.js\b|stack/i);
  expect(text).not.toMatch(/\b(select|insert into|update|delete from)\b.*\b(from|set|values|where)\b/i);
  expect(text).not.toMatch(/relation "|syntax error|violates|duplicate key|pglite|postgres/i);
}

/** An error in the shared shape `{success:false, error:{message, type, param?}}`. */
export function expectError(res: Response, status: number, type: string, param?: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body.success).toBe(false);
  expect(res.body.error).toMatchObject({ type, message: expect.any(String) });
  expect(Object.keys(res.body.error).sort()).toEqual(param === undefined ? ['message', 'type'] : ['message', 'param', 'type']);
  if (param !== undefined) expect(res.body.error.param).toBe(param);
  expectNoLeak(res);
}

/** The Partnership Program API's own body for an unknown (param, value) on a click. */
export function expectLinkNotFound(res: Response): void {
  expect(res.status, JSON.stringify(res.body)).toBe(404);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body).toEqual({ success: false, error: 'Link not found' });
}
