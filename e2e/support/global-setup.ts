import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The real script build (rollup → script/dist/svc.js), once, before any test; ingest serves the file from disk. */
export default function globalSetup(): void {
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: fileURLToPath(new URL('../..', import.meta.url)), stdio: 'inherit' });
}
