import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FoundWebKit } from '../support/webkit.js';

/**
 * One WebKitGTK browser for a test file, over W3C WebDriver (the HTTP protocol WebKitWebDriver
 * speaks): Xvfb on a display number it picks itself (-displayfd), WebKitWebDriver on a free port,
 * one session in MiniBrowser. close() ends the session and every process started here: each is
 * the leader of a process group of its own, so MiniBrowser and its web processes end with the
 * driver even when the session could not be closed.
 */

/** A cookie as WebDriver reports it: `domain` is the host for a host-only cookie, `.parent` for a domain cookie. */
export interface WebDriverCookie {
  name: string;
  value: string;
  domain: string;
  path: string;
}

export interface WebKit {
  /** WebKitGTK's version, as the session reports it. */
  version: string;
  /** Navigates and waits for the page's load event (WebDriver's default page load strategy). */
  goto(url: string): Promise<void>;
  /** Runs a function body in the page and answers what it returns. */
  execute<T>(script: string): Promise<T>;
  cookies(): Promise<WebDriverCookie[]>;
  close(): Promise<void>;
}

// Generous: on a loaded 2-core machine MiniBrowser takes several seconds to start.
const STARTUP_MS = 60_000;
const COMMAND_MS = 30_000;

export async function startWebKit(found: FoundWebKit): Promise<WebKit> {
  const processes: ChildProcess[] = [];
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-webkit-'));
  const stop = async () => {
    await Promise.all(processes.map(endGroup));
    await fs.rm(home, { recursive: true, force: true });
  };
  try {
    const xvfb = started(processes, spawn(found.xvfb, ['-displayfd', '3', '-nolisten', 'tcp', '-screen', '0', '1280x800x24'], group(3)));
    const display = `:${(await firstLine(xvfb, 3)).trim()}`;
    const port = await freePort();
    const driver = started(
      processes,
      spawn(found.driver, [`--port=${port}`], {
        ...group(),
        env: {
          ...process.env,
          DISPLAY: display,
          // No accessibility bus to wait for; caches and data of this run only.
          NO_AT_BRIDGE: '1',
          XDG_CACHE_HOME: path.join(home, 'cache'),
          XDG_CONFIG_HOME: path.join(home, 'config'),
          XDG_DATA_HOME: path.join(home, 'data'),
        },
      }),
    );
    const base = `http://127.0.0.1:${port}`;
    await waitUntilReady(base, driver);
    const session = await command(base, 'POST', '/session', { capabilities: {} }, STARTUP_MS);
    const at = `/session/${session.sessionId}`;
    return {
      version: String(session.capabilities?.browserVersion ?? ''),
      goto: async (url) => {
        await command(base, 'POST', `${at}/url`, { url });
      },
      execute: (script) => command(base, 'POST', `${at}/execute/sync`, { script, args: [] }),
      cookies: () => command(base, 'GET', `${at}/cookie`),
      close: async () => {
        await command(base, 'DELETE', at).catch(() => {});
        await stop();
      },
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Spawn options for a process group of its own, with stdin closed and fd `extraFd` (if any) piped. */
function group(extraFd?: number) {
  const stdio: ('ignore' | 'pipe')[] = ['ignore', 'ignore', 'pipe'];
  if (extraFd) stdio.push(...Array(extraFd - stdio.length).fill('ignore'), 'pipe');
  return { detached: true, stdio };
}

/** The end of what each process started here printed on stderr, for error messages. */
const printed = new WeakMap<ChildProcess, string>();
const lastOutput = (child: ChildProcess) => (printed.get(child) ?? '').trim();

function started(processes: ChildProcess[], child: ChildProcess): ChildProcess {
  processes.push(child);
  printed.set(child, '');
  child.stderr?.on('data', (chunk: Buffer) => printed.set(child, ((printed.get(child) ?? '') + chunk.toString()).slice(-2000)));
  return child;
}

/** The first line a child writes to fd `fd`; rejects when it exits first or takes too long. */
async function firstLine(child: ChildProcess, fd: number): Promise<string> {
  const stream = child.stdio[fd]!;
  let text = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${child.spawnfile}: no display after ${STARTUP_MS / 1000} s`)), STARTUP_MS);
    stream.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) {
        clearTimeout(timer);
        resolve(text);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${child.spawnfile} exited (${code}): ${lastOutput(child)}`));
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitUntilReady(base: string, driver: ChildProcess): Promise<void> {
  const deadline = Date.now() + STARTUP_MS;
  while (Date.now() < deadline) {
    if (driver.exitCode !== null) throw new Error(`WebKitWebDriver exited (${driver.exitCode}): ${lastOutput(driver)}`);
    const ready = await command(base, 'GET', '/status', undefined, 2_000).then(
      (status) => status?.ready === true,
      () => false,
    );
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`WebKitWebDriver did not answer within ${STARTUP_MS / 1000} s: ${lastOutput(driver)}`);
}

/** One WebDriver command: its `value`, or the WebDriver error as an Error. */
async function command(base: string, method: string, route: string, body?: unknown, timeout = COMMAND_MS): Promise<any> {
  const res = await fetch(base + route, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeout),
  });
  const { value } = (await res.json()) as { value: any };
  if (!res.ok) throw new Error(`WebDriver ${method} ${route}: ${value?.error}: ${value?.message}`);
  return value;
}

/**
 * SIGTERM to the child's process group (the leader may be gone while MiniBrowser is not), SIGKILL
 * if the leader is still there after 5 s.
 */
async function endGroup(child: ChildProcess): Promise<void> {
  if (!child.pid) return;
  const exited = child.exitCode === null && child.signalCode === null ? once(child, 'exit') : Promise.resolve();
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, name);
    } catch {
      // The group is gone already.
    }
  };
  signal('SIGTERM');
  const timer = setTimeout(() => signal('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
