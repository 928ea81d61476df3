import { onPath } from './chromium.js';

/**
 * The second browser engine of the tests: WebKitGTK, driven over W3C WebDriver by its
 * WebKitWebDriver (Debian's webkit2gtk-driver), which starts WebKitGTK's MiniBrowser. MiniBrowser
 * has no headless mode, so it gets a virtual display of its own (Xvfb, Debian's xvfb). A pure
 * lookup on PATH: ensure-webkit.ts installs them, e2e/webkit/ uses them.
 */
export interface FoundWebKit {
  driver: string;
  xvfb: string;
}

/** The Debian packages that bring them. */
export const WEBKIT_PACKAGES = ['webkit2gtk-driver', 'xvfb'];

/** The one line printed when they are missing and could not be installed. */
export const NO_WEBKIT_MESSAGE = `No WebKit: install Debian's ${WEBKIT_PACKAGES.join(' and ')} (apt-get install ${WEBKIT_PACKAGES.join(' ')})`;

export function findWebKit(envPath = process.env.PATH): FoundWebKit | null {
  const driver = onPath('WebKitWebDriver', envPath);
  const xvfb = onPath('Xvfb', envPath);
  return driver && xvfb ? { driver, xvfb } : null;
}
