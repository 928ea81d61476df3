import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BackupFailure } from '../../src/backup/errors.js';
import { findTool, libpqConnection, toolFolders } from '../../src/backup/postgres.js';

describe('PostgreSQL client tools for svc backup and restore', () => {
  it('says what to install when pg_dump is nowhere (exit 1 in the CLI)', () => {
    const folders = toolFolders('', '/nonexistent/postgresql');
    expect(folders).toEqual([]);
    expect(() => findTool('pg_dump', folders)).toThrow(BackupFailure);
    expect(() => findTool('pg_dump', folders)).toThrow(/pg_dump is not installed.*apt-get install postgresql-client/);
  });

  it('looks on PATH first, then in Debian’s per-version folders, newest first', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-pgtools-'));
    try {
      for (const v of ['13', '16', 'common']) await fs.mkdir(path.join(root, v, 'bin'), { recursive: true });
      await fs.writeFile(path.join(root, '13', 'bin', 'pg_restore'), '', { mode: 0o755 });
      const folders = toolFolders(`/a${path.delimiter}/b`, root);
      expect(folders).toEqual(['/a', '/b', path.join(root, '16', 'bin'), path.join(root, '13', 'bin')]);
      expect(findTool('pg_restore', folders)).toBe(path.join(root, '13', 'bin', 'pg_restore'));
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  });

  it('passes the password in PGPASSWORD, never in the arguments', () => {
    const { dbname, env } = libpqConnection('postgres://svc:p%40ss%20word@db.internal:5433/svc?sslmode=require');
    expect(dbname).toBe('postgres://svc@db.internal:5433/svc?sslmode=require');
    expect(env).toEqual({ PGPASSWORD: 'p@ss word' });
    expect(libpqConnection('postgres://postgres@127.0.0.1/x').env).toEqual({});
  });
});
