import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { onPath } from './chromium.js';

/**
 * What ensure-chromium.ts and ensure-webkit.ts share: one line of output per step, commands run
 * quietly under a time limit, and Debian packages installed as root (a fresh Debian machine or
 * CI container).
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const APT_TIMEOUT_MS = 15 * 60_000;

export function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** Runs a command quietly; on failure prints why (the end of its output) and returns false. */
export function run(command: string, args: string[], timeout: number, env: NodeJS.ProcessEnv = process.env): boolean {
  const result = spawnSync(command, args, {
    cwd: root,
    env,
    timeout,
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status === 0) return true;
  const why =
    result.error?.message ??
    (result.signal ? `killed by ${result.signal} (time limit ${timeout / 1000} s)` : `exit status ${result.status}`);
  const tail = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n').slice(-5).join('\n');
  process.stderr.write(`${command} ${args.join(' ')}: ${why}\n${tail ? `${tail}\n` : ''}`);
  return false;
}

/** apt-get, when this process may install Debian packages with it: Linux, as root. */
export function aptGetAsRoot(): string | undefined {
  return process.platform === 'linux' && process.getuid?.() === 0 ? onPath('apt-get', process.env.PATH) : undefined;
}

/** `apt-get update` then `apt-get install -y` the packages, non-interactively; false when either fails. */
export function aptInstall(aptGet: string, packages: string[]): boolean {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  return run(aptGet, ['update', '-qq'], APT_TIMEOUT_MS, env) && run(aptGet, ['install', '-y', '-qq', ...packages], APT_TIMEOUT_MS, env);
}
