import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * `tsx e2e/support/with-throwaway-db.ts <command…>`: runs the command against a fresh PostgreSQL
 * database made from DATABASE_URL (the server's admin URL), and drops it when the command ends,
 * so browser-test runs never write into a shared database.
 */
async function main(): Promise<void> {
  const adminUrl = process.env.DATABASE_URL;
  const [command, ...args] = process.argv.slice(2);
  if (!adminUrl || !command) throw new Error('usage: DATABASE_URL=… with-throwaway-db <command…>');
  const name = `svc_e2e_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;

  const child = spawn(command, args, { stdio: 'inherit', env: { ...process.env, DATABASE_URL: url.toString() } });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => child.kill(signal));
  const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
  process.exit(code);
}

main().catch((err) => {
  process.stderr.write(`with-throwaway-db: ${err instanceof Error ? err.message : err}\n`);
  process.exit(1);
});
