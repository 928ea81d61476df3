import fs from 'node:fs/promises';
import path from 'node:path';
import type { Db } from './db/database.js';
import { createApiKey } from './resources/api-keys/api-keys.service.js';
import { someOrganizations } from './resources/organizations/organizations.repository.js';
import { createOrganization } from './resources/organizations/organizations.service.js';
import { createProgram } from './resources/programs/programs.service.js';

export interface InitResult {
  organization_id: string;
  program_id: string;
  group_id: string;
  api_key: string;
  public_key: string;
}

/** An organization with one program (default group, default flow, public key) and a secret API key. */
export async function initOrganization(db: Db, names: { org: string; program: string }): Promise<InitResult> {
  const org = await createOrganization(db, names.org);
  const program = await createProgram(db, org.id, { name: names.program });
  const { secret } = await createApiKey(db, org.id, 'Created by svc init');
  return {
    organization_id: org.id,
    program_id: program.id,
    group_id: program.default_group_id,
    api_key: secret,
    public_key: program.public_key,
  };
}

/**
 * On an empty database, creates a first organization and program so that `npm start` is usable
 * at once. Returns the keys (shown once) or null when the database already had data.
 */
export async function bootstrapIfEmpty(db: Db, dataDir: string | null): Promise<{ result: InitResult; file: string | null } | null> {
  if ((await someOrganizations(db, 1)).length > 0) return null;
  const result = await initOrganization(db, { org: 'My organization', program: 'My program' });
  let file: string | null = null;
  if (dataDir) {
    file = path.join(dataDir, 'bootstrap.json');
    await fs.mkdir(dataDir, { recursive: true });
    await fs.writeFile(file, `${JSON.stringify(result, null, 2)}\n`, { mode: 0o600 });
    await fs.chmod(file, 0o600);
  }
  return { result, file };
}
