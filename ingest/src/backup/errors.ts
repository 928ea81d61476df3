/**
 * Bad input to `svc backup` or `svc restore` (a file that is not a backup, a target that is not
 * empty, a file that exists): the CLI exits 2 with the message, and nothing has changed.
 */
export class BackupRefusal extends Error {}

/**
 * A dependency failed or is missing (pg_dump not installed, PostgreSQL unreachable, the running
 * service could not dump): the CLI exits 1 with the message alone.
 */
export class BackupFailure extends Error {}
