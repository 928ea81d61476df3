import fs from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'kysely';
import type { Db } from './db/database.js';
import { advisoryLockId } from './ids.js';
import { createApiKey } from './resources/api-keys/api-keys.service.js';
import { someOrganizations } from './resources/organizations/organizations.repository.js';
import { createOrganization } from './resources/organizations/organizations.service.js';
import { createProgram } from './resources/programs/programs.service.js';
import { checkEmailFree, createUser } from './resources/users/users.service.js';

export interface InitResult {
  organization_id: string;
  program_id: string;
  group_id: string;
  api_key: string;
  public_key: string;
  /** The dashboard's first owner and their generated password (shown once); null when none was asked for. */
  owner_email: string | null;
  owner_password: string | null;
}

/** Who owns a new organization when nobody is named: a local address to sign in with. */
export const DEFAULT_OWNER_EMAIL = 'owner@localhost';

/**
 * An organization with one program (default group, default flow, public key), a secret API key,
 * and given `ownerEmail`, a dashboard owner with a generated password. A taken e-mail is refused
 * before anything is created.
 */
export async function initOrganization(db: Db, names: { org: string; program: string; ownerEmail?: string }): Promise<InitResult> {
  if (names.ownerEmail) await checkEmailFree(db, names.ownerEmail);
  const org = await createOrganization(db, names.org);
  const program = await createProgram(db, org.id, { name: names.program });
  const { secret } = await createApiKey(db, org.id, 'Created by svc init');
  const owner = names.ownerEmail ? await createUser(db, org.id, { email: names.ownerEmail, role: 'owner' }) : null;
  return {
    organization_id: org.id,
    program_id: program.id,
    group_id: program.default_group_id,
    api_key: secret,
    public_key: program.public_key,
    owner_email: owner?.user.email ?? null,
    owner_password: owner?.password ?? null,
  };
}

const BOOTSTRAP_LOCK = advisoryLockId('svc:bootstrap');

/**
 * On an empty database, creates a first organization and program so that `npm start` is usable
 * at once. Returns the keys (shown once) or null when the database already had data. Processes
 * starting together on one empty database take turns (a session advisory lock on one
 * connection): one bootstraps, the others then find its organization.
 */
export async function bootstrapIfEmpty(db: Db, dataDir: string | null): Promise<{ result: InitResult; file: string | null } | null> {
  const result = await db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${BOOTSTRAP_LOCK})`.execute(conn);
    try {
      if ((await someOrganizations(conn, 1)).length > 0) return null;
      return await initOrganization(conn, { org: 'My organization', program: 'My program', ownerEmail: DEFAULT_OWNER_EMAIL });
    } finally {
      await sql`select pg_advisory_unlock(${BOOTSTRAP_LOCK})`.execute(conn);
    }
  });
  if (!result) return null;
  let file: string | null = null;
  if (dataDir) {
    file = path.join(dataDir, 'bootstrap.json');
    await fs.mkdir(dataDir, { recursive: true });
    await fs.writeFile(file, `${JSON.stringify(result, null, 2)}\n`, { mode: 0o600 });
    await fs.chmod(file, 0o600);
  }
  return { result, file };
}
