import fs from 'node:fs';
import path from 'node:path';
import { chromium } from '@playwright/test';

/**
 * Which Chromium the browser tests drive. A pure lookup (a few stat calls, nothing installed):
 * playwright.config.ts calls it for launchOptions.executablePath, and ensure-chromium.ts calls it
 * before and after obtaining one. The order:
 *
 *   1. SVC_CHROMIUM, a path to an executable: an explicit choice, so a wrong one is an error
 *      rather than a silent fall back to another browser;
 *   2. the system package: /usr/bin/chromium (Debian's chromium), then `chromium` or
 *      `chromium-browser` on PATH;
 *   3. the Chromium Playwright downloaded itself (`npx playwright install chromium`), when its
 *      executable is there.
 */
export const CHROMIUM_ENV = 'SVC_CHROMIUM';

/** The one line printed when nothing is found and nothing could be installed. */
export const NO_CHROMIUM_MESSAGE = `No Chromium found: install Debian's chromium (apt-get install chromium) or set ${CHROMIUM_ENV}=/path/to/chrome`;

const SYSTEM_CHROMIUM = '/usr/bin/chromium';
const PATH_NAMES = ['chromium', 'chromium-browser'];

export interface FoundChromium {
  path: string;
  /** Where it was found, for the line ensure-chromium prints. */
  source: string;
}

/** SVC_CHROMIUM names something that is not an executable file. */
export class BadChromiumSetting extends Error {}

export function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `name` in the directories of PATH (what a shell would run). */
export function onPath(name: string, envPath: string | undefined): string | undefined {
  for (const dir of (envPath ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, name);
    if (isExecutableFile(file)) return file;
  }
  return undefined;
}

/** Where Playwright puts (or would put) its own Chromium; undefined on a platform it has no build for. */
export function playwrightChromiumPath(): string | undefined {
  try {
    return chromium.executablePath();
  } catch {
    return undefined;
  }
}

/** The Chromium to use, or null when none is present. Throws BadChromiumSetting for a wrong SVC_CHROMIUM. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): FoundChromium | null {
  const chosen = env[CHROMIUM_ENV];
  if (chosen) {
    if (!isExecutableFile(chosen)) throw new BadChromiumSetting(`${CHROMIUM_ENV}=${chosen} is not an executable file: fix it or unset it`);
    return { path: chosen, source: CHROMIUM_ENV };
  }
  if (isExecutableFile(SYSTEM_CHROMIUM)) return { path: SYSTEM_CHROMIUM, source: 'system package' };
  for (const name of PATH_NAMES) {
    const file = onPath(name, env.PATH);
    if (file) return { path: file, source: `${name} on PATH` };
  }
  const downloaded = playwrightChromiumPath();
  if (downloaded && isExecutableFile(downloaded)) return { path: downloaded, source: "Playwright's download" };
  return null;
}
