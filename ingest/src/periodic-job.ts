/** A job that runs now and then every `intervalSeconds`, one run at a time in this process. */
export interface PeriodicJob<T> {
  /** Runs once now (joining a run in progress). */
  runNow(): Promise<T>;
  /** Stops the timer and waits for a run in progress. */
  close(): Promise<void>;
}

/** Starts `run` now and every `intervalSeconds`; a failed run goes to `onError` and the next one runs as planned. */
export function startPeriodicJob<T>(run: () => Promise<T>, intervalSeconds: number, onError: (err: unknown) => void): PeriodicJob<T> {
  let running: Promise<T> | null = null;
  const runNow = () => {
    running ??= run().finally(() => {
      running = null;
    });
    return running;
  };
  const tick = () => runNow().catch(onError);
  const timer = setInterval(tick, intervalSeconds * 1000);
  timer.unref();
  void tick();
  return {
    runNow,
    async close() {
      clearInterval(timer);
      await running?.catch(() => {});
    },
  };
}
