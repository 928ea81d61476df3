import fs from 'node:fs/promises';
import type { Server } from 'node:http';
import { apiClient } from '../../ingest/client/api-client.js';
import { createApp } from '../../ingest/src/app.js';
import { initOrganization } from '../../ingest/src/bootstrap.js';
import { loadConfig } from '../../ingest/src/config.js';
import { createLogger } from '../../ingest/src/logger.js';
import { openRuntime } from '../../ingest/src/runtime.js';
import { createDemoApp } from './app.js';
import { seedDemo } from './seed.js';

/**
 * `npm run demo`: ingest and the Acme demo site together, with demo partners and links.
 * Ingest runs on the embedded defaults (in memory) unless DATABASE_URL / REDIS_URL say otherwise.
 *
 * INGEST_PORT (8787), DEMO_PORT (3000), DEMO_HOST (localhost, the host name printed and used for
 * ingest's URL), DEMO_MODE (proxy | direct), DEMO_STATE_FILE (where to write the ids and keys
 * as JSON, for browser tests), and any ingest setting: the browser tests set SVC_TEST_HOOKS=1, so
 * that the ingest hosted here serves its test hooks (under /__test, on ingest's own URL: the site
 * itself reaches svc over HTTP only, as a merchant's does). The bot filter is off unless
 * SVC_BOT_FILTER=on (see below).
 */
async function main(): Promise<void> {
  const ingestPort = Number(process.env.INGEST_PORT ?? 8787);
  const demoPort = Number(process.env.DEMO_PORT ?? 3000);
  const host = process.env.DEMO_HOST ?? 'localhost';
  const config = loadConfig({
    SVC_DATA_DIR: 'memory://',
    LOG_LEVEL: 'warn',
    SVC_TRUST_PROXY: 'loopback',
    // A local showcase driven by people and by headless browsers (Playwright's Chromium says
    // HeadlessChrome): the bot filter would drop those clicks without a word. Real deployments
    // keep it on (the default of ingest); SVC_BOT_FILTER=on here turns it back on.
    SVC_BOT_FILTER: 'off',
    // Its links (the portal's sign-in e-mails, the script tag) point where the demo serves ingest.
    SVC_PUBLIC_URL: `http://${host}:${ingestPort}`,
    ...process.env,
    PORT: String(ingestPort),
  });
  const logger = createLogger(config.logLevel, 'stderr');
  const runtime = await openRuntime(config, logger);
  const ingest = await listen(createApp(runtime), ingestPort);
  const ingestUrl = `http://${host}:${ingestPort}`;

  const keys = await initOrganization(runtime.db, { org: 'Acme Inc', program: 'Acme Partners', ownerEmail: 'owner@acme.example' });
  const partners = await seedDemo(ingestUrl, keys.api_key, keys.program_id, `http://${host}:${demoPort}`);
  const mode = process.env.DEMO_MODE === 'direct' ? 'direct' : 'proxy';
  const demoApp = createDemoApp({
    ingestUrl,
    secretKey: keys.api_key,
    publicKey: keys.public_key,
    programId: keys.program_id,
    partnerLinks: partners.map((p) => p.link),
    mode,
  });
  const demo = await listen(demoApp, demoPort);

  const portalUrl = `${ingestUrl}/p/${(await apiClient(ingestUrl, keys.api_key).get(`/v1/programs/${keys.program_id}`)).data.subdomain}`;
  const state = { ingestUrl, demoUrl: `http://${host}:${demoPort}`, portalUrl, outboxDir: config.outboxDir, ...keys, partners };
  if (process.env.DEMO_STATE_FILE) await fs.writeFile(process.env.DEMO_STATE_FILE, JSON.stringify(state, null, 2), { mode: 0o600 });
  process.stdout.write(
    [
      '',
      `Acme demo site      ${state.demoUrl}   (svc.js ${mode === 'proxy' ? 'served same-site under /svc' : `from ${ingestUrl}`})`,
      ...partners.map((p) => `  ${p.name.padEnd(17)} ${p.link.url}`),
      `  partner pages     ${state.demoUrl}/partners`,
      `svc API             ${ingestUrl}/docs   (secret key ${keys.api_key})`,
      `svc dashboard       ${ingestUrl}/dashboard   (sign in as ${keys.owner_email}, password ${keys.owner_password})`,
      `partner portal      ${portalUrl}   (sign in as alice@partners.example: the link is e-mailed, written to ${config.outboxDir})`,
      `bot filter          ${config.botFilter ? 'on: clicks from bot User-Agents (headless browsers too) are not recorded' : 'off: headless browsers are tracked too (SVC_BOT_FILTER=on to filter them, as deployments do)'}`,
      ...(config.testHooks ? [`test hooks          on: ${ingestUrl}/__test/… (SVC_TEST_HOOKS=1, for the browser tests)`] : []),
      '',
      'Arrive through a partner link, sign up, press "Pay": the partner page shows the commission.',
      '',
    ].join('\n'),
  );

  const stop = () => {
    demo.close();
    ingest.close(() => runtime.close().then(() => process.exit(0)));
    demo.closeAllConnections();
    ingest.closeAllConnections();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

function listen(app: import('express').Express, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, '0.0.0.0');
    server.once('listening', () => resolve(server));
    server.once('error', reject);
  });
}

main().catch((err) => {
  process.stderr.write(`demo: ${err instanceof Error ? err.stack : err}\n`);
  process.exit(1);
});
