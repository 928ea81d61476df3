import { ConfigError, loadConfig } from './config.js';
import { serve } from './server.js';

try {
  await serve(loadConfig());
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
}
