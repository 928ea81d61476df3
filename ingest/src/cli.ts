import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { backupCommand, restoreCommand } from './backup/commands.js';
import { claimDirectory } from './backup/directory-claim.js';
import { BackupFailure, BackupRefusal } from './backup/errors.js';
import { initOrganization } from './bootstrap.js';
import { type Config, ConfigError, loadConfig, MEMORY } from './config.js';
import { type Db, migrateToLatest, openDatabase } from './db/database.js';
import { emailField } from './http/fields.js';
import { toApiKey } from './resources/api-keys/api-keys.serializer.js';
import { allApiKeys, createApiKey, revokeApiKey } from './resources/api-keys/api-keys.service.js';
import { findOrganization, someOrganizations } from './resources/organizations/organizations.repository.js';
import { createUser, listUsers, USER_ROLES, type UserRole } from './resources/users/users.service.js';
import { openStore } from './store/index.js';

const USAGE = `Usage: svc <command> [options]

Commands:
  init --org NAME --program NAME [--email E] [--json]
                                            create an organization, a program, a secret API key and,
                                            with --email, the dashboard's owner (password shown once)
  migrate                                   apply database migrations
  serve                                     start the service (same as npm start)
  keys create [--org ID] [--name NAME]      create a secret API key (shown once)
  keys list [--org ID]                      list active API keys
  keys revoke KEY_ID [--org ID]             revoke an API key
  users create --email E [--role owner|member] [--name NAME] [--org ID]
                                            add a dashboard user; prints their password once
  users list [--org ID]                     list dashboard users
  backup FILE                               write a consistent backup of the database to FILE (a new
                                            file), also while the service runs
  restore FILE                              fill an empty database (or empty SVC_DATA_DIR) from a
                                            backup, then migrate it

--org may be left out when the database holds exactly one organization.
Configuration comes from the environment (DATABASE_URL, SVC_DATA_DIR, …); see README.md#configuration.`;

class UsageError extends Error {}

async function withDatabase<T>(config: Config, work: (db: Db) => Promise<T>): Promise<T> {
  // An embedded data directory is one process's at a time (backup/directory-claim.ts): a command
  // beside a running service would write PGlite's files under it.
  const claim =
    config.database.kind === 'pglite' && config.database.dataDir !== MEMORY ? await claimDirectory(config.database.dataDir) : undefined;
  if (claim === null) {
    throw new BackupRefusal(
      'a running svc holds this data directory (PGlite serves one process at a time): stop it first, or make the change through the dashboard or the API',
    );
  }
  try {
    const db = openDatabase(config.database);
    try {
      await migrateToLatest(db);
      return await work(db);
    } finally {
      await db.destroy();
    }
  } finally {
    await claim?.release();
  }
}

async function resolveOrganization(db: Db, given: string | undefined): Promise<string> {
  if (given) {
    const org = await findOrganization(db, given);
    if (!org) throw new UsageError(`No such organization: ${given}`);
    return org.id;
  }
  const orgs = await someOrganizations(db, 2);
  if (orgs.length === 1) return orgs[0].id;
  throw new UsageError(orgs.length === 0 ? 'No organization yet: run `svc init` first' : 'Several organizations exist: pass --org ID');
}

function checkedEmail(email: string | undefined): string {
  const parsed = emailField.safeParse(email);
  if (!parsed.success) throw new UsageError('--email needs an e-mail address');
  return parsed.data;
}

export async function runCli(argv: string[], out: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      org: { type: 'string' },
      program: { type: 'string' },
      name: { type: 'string' },
      email: { type: 'string' },
      role: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [command, sub, arg] = positionals;
  if (values.help || !command) {
    out(USAGE);
    return;
  }
  const config = loadConfig();

  switch (command) {
    case 'init': {
      if (!values.org || !values.program) throw new UsageError('init needs --org NAME and --program NAME');
      const ownerEmail = values.email === undefined ? undefined : checkedEmail(values.email);
      const result = await withDatabase(config, (db) => initOrganization(db, { org: values.org!, program: values.program!, ownerEmail }));
      if (values.json) out(JSON.stringify(result));
      else {
        out(`organization  ${result.organization_id}`);
        out(`program       ${result.program_id}`);
        out(`group         ${result.group_id}`);
        out(`public key    ${result.public_key}   (script tag data-key)`);
        out(`secret key    ${result.api_key}   (shown once; server side only)`);
        if (result.owner_email)
          out(`dashboard     /dashboard: ${result.owner_email} with password ${result.owner_password}   (shown once)`);
        else out('dashboard     no user yet: svc users create --email you@example.com --role owner');
      }
      return;
    }
    case 'migrate': {
      await withDatabase(config, async () => undefined);
      out('Database is up to date.');
      return;
    }
    case 'serve': {
      // Loaded only here: the web app is most of the CLI's start-up time (about 0.75 s), which
      // the other commands do not need.
      const { serve } = await import('./server.js');
      await serve(config);
      return;
    }
    case 'keys':
      // Usage is checked before the database is opened (slow on PGlite, and not needed to say "no").
      if (sub !== 'create' && sub !== 'list' && sub !== 'revoke') throw new UsageError('keys needs one of: create, list, revoke');
      if (sub === 'revoke' && !arg) throw new UsageError('keys revoke needs a key id');
      return withDatabase(config, async (db) => {
        const organizationId = await resolveOrganization(db, values.org);
        if (sub === 'create') {
          const { key, secret } = await createApiKey(db, organizationId, values.name ?? null);
          if (values.json) out(JSON.stringify({ ...toApiKey(key), secret }));
          else out(`${key.id}  ${secret}   (shown once)`);
        } else if (sub === 'list') {
          const keys = await allApiKeys(db, organizationId);
          if (values.json) out(JSON.stringify(keys));
          else for (const k of keys) out(`${k.id}  ${k.redacted_key}  ${k.created_at}  ${k.name ?? ''}`.trimEnd());
        } else if (sub === 'revoke') {
          if (!arg) throw new UsageError('keys revoke needs a key id');
          // Running services on the same Redis forget the key at once.
          const store = openStore(config.redisUrl);
          try {
            await revokeApiKey(db, store, organizationId, arg);
          } finally {
            await store.close();
          }
          out(`Revoked ${arg}.`);
        } else {
          throw new UsageError('keys needs one of: create, list, revoke');
        }
      });
    case 'users': {
      if (sub !== 'create' && sub !== 'list') throw new UsageError('users needs one of: create, list');
      const role = values.role ?? 'member';
      if (!(USER_ROLES as readonly string[]).includes(role)) throw new UsageError('--role must be owner or member');
      const email = sub === 'create' ? checkedEmail(values.email) : '';
      return withDatabase(config, async (db) => {
        const organizationId = await resolveOrganization(db, values.org);
        if (sub === 'create') {
          const { user, password } = await createUser(db, organizationId, { email, name: values.name ?? null, role: role as UserRole });
          if (values.json) out(JSON.stringify({ id: user.id, email: user.email, role: user.role, password }));
          else out(`${user.id}  ${user.email}  ${user.role}  password ${password}   (shown once; sign in at /dashboard)`);
        } else {
          const users = await listUsers(db, organizationId);
          if (values.json) out(JSON.stringify(users.map(({ password_hash: _hash, ...u }) => u)));
          else for (const u of users) out(`${u.id}  ${u.email}  ${u.role}  ${u.name ?? ''}`.trimEnd());
        }
      });
    }
    case 'backup':
    case 'restore': {
      // ingest/docs/backups.md
      if (!sub || arg) throw new UsageError(`${command} needs exactly one FILE`);
      out(await (command === 'backup' ? backupCommand : restoreCommand)(config, sub));
      return;
    }
    default:
      throw new UsageError(`Unknown command: ${command}`);
  }
}

const isMain = Boolean(process.argv[1]) && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (isMain || process.env.SVC_CLI_MAIN === '1') {
  runCli(process.argv.slice(2)).catch((err) => {
    const usage = err instanceof UsageError || err instanceof ConfigError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    // A refused backup or restore is not a usage mistake: its one line says what to do.
    const known = usage || err instanceof BackupRefusal;
    const apiMessage = (err as { type?: string }).type || err instanceof BackupFailure ? (err as Error).message : null;
    console.error(known || apiMessage ? `svc: ${(err as Error).message}` : err);
    if (usage) console.error('Run `svc --help` for usage.');
    process.exit(known ? 2 : 1);
  });
}
