import { aptGetAsRoot, aptInstall, say } from './install.js';
import { findWebKit, NO_WEBKIT_MESSAGE, WEBKIT_PACKAGES } from './webkit.js';

/**
 * `tsx e2e/support/ensure-webkit.ts`, run by `npm test` right before the WebKit tests
 * (e2e/webkit/): makes sure WebKitWebDriver and Xvfb are there (webkit.ts), installing Debian's
 * packages as root when they are not, and prints one line saying which. Where they cannot be had
 * (not Debian, not root) it says so in one line: under CI that fails the run, elsewhere the WebKit
 * tests then report themselves skipped.
 */
function main(): void {
  let found = findWebKit();
  const aptGet = found ? undefined : aptGetAsRoot();
  if (aptGet) {
    say(`Installing Debian's ${WEBKIT_PACKAGES.join(' and ')} (apt-get install ${WEBKIT_PACKAGES.join(' ')})…`);
    if (aptInstall(aptGet, WEBKIT_PACKAGES)) found = findWebKit();
  }
  if (found) {
    say(`WebKit: ${found.driver} under ${found.xvfb}`);
    return;
  }
  if (process.env.CI) {
    process.stderr.write(`${NO_WEBKIT_MESSAGE}\n`);
    process.exit(1);
  }
  say(`${NO_WEBKIT_MESSAGE}; the WebKit tests are skipped`);
}

main();
