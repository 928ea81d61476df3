/** Time constants and waits shared by the tests (no imports, so unit tests can use them too). */

/** An ISO 8601 UTC timestamp with milliseconds, as the API writes every date: `2024-01-01T00:00:00.000Z`. */
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** One day in milliseconds. */
export const DAY_MS = 86_400_000;

/**
 * Options for vi.waitFor: how long a test waits for what happens in milliseconds on an idle
 * machine and may take seconds on a loaded one (vi.waitFor's default, one second, is too short
 * there). Only a test that fails waits all of it.
 */
export const EVENTUALLY = { timeout: 10_000, interval: 20 } as const;

/**
 * Resolves once the clock has moved past `time` (a timestamp the app wrote, to the millisecond):
 * whatever the app stamps from then on is later. For a test that needs two times to differ; it
 * waits for that, not for a fixed time (a millisecond at most).
 */
export async function clockPast(time: string | Date): Promise<void> {
  const past = typeof time === 'string' ? Date.parse(time) : time.getTime();
  if (Number.isNaN(past)) throw new Error(`not a time: ${String(time)}`);
  while (Date.now() <= past) await new Promise((resolve) => setImmediate(resolve));
}
