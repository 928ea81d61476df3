import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { CustomerRow } from '../../db/schema.js';

export function selectCustomers(db: Db, organizationId: string) {
  return db.selectFrom('customers').selectAll().where('organization_id', '=', organizationId).where('deleted_at', 'is', null);
}

export function findCustomer(db: Db, organizationId: string, customerId: string): Promise<CustomerRow | undefined> {
  return selectCustomers(db, organizationId).where('id', '=', customerId).executeTakeFirst();
}

/** The live customer that already holds this identifier or integrator id in the program. */
export function findExistingCustomer(
  db: Db,
  programId: string,
  keys: { identifier?: string; customerId?: string | null },
): Promise<CustomerRow | undefined> {
  return db
    .selectFrom('customers')
    .selectAll()
    .where('program_id', '=', programId)
    .where('deleted_at', 'is', null)
    .where((eb) =>
      eb.or([
        ...(keys.identifier !== undefined ? [eb(sql`lower(identifier)`, '=', keys.identifier.toLowerCase())] : []),
        ...(keys.customerId ? [eb('customer_id', '=', keys.customerId)] : []),
      ]),
    )
    .executeTakeFirst();
}

/** `%` and `_` in a search are matched literally. */
export function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
