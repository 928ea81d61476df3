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

/**
 * Runs `scenario` until one run fits in `windowMs` of real time. For a limit counted over a real
 * window (a rate limit's second, kept by the shared store), which a few requests can outlast on a
 * loaded machine: a run whose window ended halfway proves nothing either way, so it is made again,
 * with the attempt's number, for the scenario to take a fresh budget (a new key, another client
 * address). A run that fails within the window fails at once; one that passes is not repeated.
 */
export async function inOneWindow(windowMs: number, scenario: (attempt: number) => Promise<void>, attempts = 5): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const started = performance.now();
    try {
      await scenario(attempt);
      return;
    } catch (err) {
      if (performance.now() - started < windowMs || attempt >= attempts) throw err;
    }
  }
}
