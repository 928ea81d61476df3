import express from 'express';
import type { Db } from '../../ingest/src/db/database.js';

/**
 * Routes for the browser tests only, mounted under /__e2e when DEMO_TEST_HOOKS=1 (which
 * e2e/playwright.config.ts sets; `npm run demo` never does).
 *
 * `POST /__e2e/clicks/:id/age {seconds}` makes a click that many seconds old as the server sees
 * it (its created_at moves back), so a test can reach the end of a referral's cookie_duration
 * without waiting days: 204, or 404 for an unknown click.
 */
export function testHooks(db: Db): express.Router {
  const router = express.Router();
  router.post('/clicks/:id/age', express.json(), async (req, res) => {
    const seconds = Number(req.body?.seconds);
    if (!Number.isFinite(seconds) || seconds < 0) {
      res.status(400).json({ error: 'seconds: a number of seconds, at least 0' });
      return;
    }
    const at = new Date(Date.now() - seconds * 1000);
    const result = await db
      .updateTable('clicks')
      .set({ created_at: at, updated_at: at })
      .where('id', '=', req.params.id)
      .executeTakeFirst();
    res.status(result.numUpdatedRows > 0n ? 204 : 404).end();
  });
  return router;
}
