import type { Server } from 'node:http';
import { createApp } from './app.js';
import { bootstrapIfEmpty, type InitResult } from './bootstrap.js';
import type { Config } from './config.js';
import { closeGracefully } from './http/graceful-close.js';
import { createLogger } from './logger.js';
import { listenForMetrics } from './metrics/metrics-server.js';
import { anyUser } from './resources/users/users.service.js';
import { openRuntime } from './runtime.js';

/** Migrates, bootstraps an empty database, listens, and shuts down gracefully on SIGTERM/SIGINT. */
export async function serve(config: Config): Promise<Server> {
  const logger = createLogger(config.logLevel);
  const runtime = await openRuntime(config, logger);
  const boot = await bootstrapIfEmpty(runtime.db, config.dataDir);

  const app = createApp(runtime);
  const server = app.listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const port = portOf(server);
  const metricsServer =
    runtime.metrics && config.metricsPort !== undefined
      ? await listenForMetrics(runtime.metrics, config.metricsPort, config.host, logger)
      : undefined;
  if (metricsServer)
    logger.info(
      { metricsPort: portOf(metricsServer) },
      `metrics at http://${config.host}:${portOf(metricsServer)}/metrics (SVC_METRICS_PORT)`,
    );
  if (boot) printBootstrap(boot.result, boot.file, config.publicUrl);
  else if (!(await anyUser(runtime.db))) {
    logger.warn('no dashboard user yet: create the first owner with `npm run svc -- users create --email you@example.com --role owner`');
  }
  logger.info(
    { port, publicUrl: config.publicUrl, sql: config.database.kind, sharedState: runtime.store.kind },
    config.publicUrlSet
      ? `svc listening on port ${port} as ${config.publicUrl}`
      : `svc listening on ${config.publicUrl} (SVC_PUBLIC_URL unset: e-mails, pages and API answers link here; set it to the address partners and merchants reach svc at)`,
  );
  runtime.mailer.kick();

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    metricsServer?.close();
    closeGracefully(server, () => {
      runtime.close().then(
        () => process.exit(0),
        (err) => {
          logger.error({ err }, 'shutting down failed');
          process.exit(1);
        },
      );
    });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  return server;
}

function portOf(server: Server): number {
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

function printBootstrap(result: InitResult, file: string | null, publicUrl: string) {
  const lines = [
    '',
    'svc: created your first organization and program. These keys are shown once:',
    `  secret API key   ${result.api_key}   (server side only: Authorization: Bearer …)`,
    `  public key       ${result.public_key}   (for the script tag: data-key)`,
    `  organization     ${result.organization_id}`,
    `  program          ${result.program_id}`,
    `  dashboard        ${publicUrl}/dashboard   sign in as ${result.owner_email} with ${result.owner_password}`,
    file ? `  also written to ${file} (mode 0600)` : '  (in-memory data: nothing written to disk)',
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
