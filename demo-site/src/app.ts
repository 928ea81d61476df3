import { randomUUID } from 'node:crypto';
import express, { type Request } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { ApiCallError, apiClient } from '../../ingest/client/api-client.js';
import {
  accountPage,
  homePage,
  type PartnerLink,
  partnerPage,
  partnerPortalPage,
  partnersPage,
  pricingPage,
  type ScriptTag,
  signupPage,
} from './pages.js';

export interface DemoSettings {
  /** Where ingest listens, e.g. http://localhost:8787. */
  ingestUrl: string;
  /** The secret key: used by this server only. */
  secretKey: string;
  publicKey: string;
  programId: string;
  partnerLinks: PartnerLink[];
  /**
   * `proxy` (default): the script and its API are served same-site under /svc/*, proxied to
   * ingest, so the click response sets the cookies itself. `direct`: both come from ingest's
   * own origin and the script writes the cookies.
   */
  mode?: 'proxy' | 'direct';
}

interface User {
  email: string;
  customer_id: string | null;
  partner_id: string | null;
}

const PRICE_CENTS = 4900;

/**
 * Acme, a small merchant site using svc: every page carries the script tag; the server keeps
 * its own users and reports payments with the secret key.
 */
export function createDemoApp(settings: DemoSettings): express.Express {
  const app = express();
  const svc = apiClient(settings.ingestUrl, settings.secretKey);
  const users = new Map<string, User>();

  // Same-site mode: the merchant's own origin serves svc.js and its API under /svc/*.
  app.use('/svc', createProxyMiddleware({ target: settings.ingestUrl, changeOrigin: false, xfwd: true }));
  app.use(express.json());

  /**
   * `?svc_mode=direct|proxy`, `?svc_consent=required` and `?svc_key=pk_…` (another program's
   * public key) try other setups on any page.
   */
  function tagFor(req: Request): ScriptTag {
    const mode = req.query.svc_mode === 'direct' || req.query.svc_mode === 'proxy' ? req.query.svc_mode : (settings.mode ?? 'proxy');
    const publicKey = typeof req.query.svc_key === 'string' ? req.query.svc_key : settings.publicKey;
    const common = { publicKey, stripe: true, consent: req.query.svc_consent === 'required' };
    return mode === 'proxy' ? { ...common, src: '/svc/svc.js', api: '/svc' } : { ...common, src: `${settings.ingestUrl}/svc.js` };
  }

  app.get('/favicon.ico', (_req, res) => res.status(204).end());
  app.get('/', (req, res) => res.send(homePage(tagFor(req))));
  app.get('/pricing', (req, res) => res.send(pricingPage(tagFor(req))));
  app.get('/signup', (req, res) => res.send(signupPage(tagFor(req))));
  app.get('/partners', (req, res) => res.send(partnersPage(tagFor(req), settings.partnerLinks)));

  app.get('/account', (req, res) => {
    const user = users.get(String(req.query.email ?? '').toLowerCase());
    if (!user) return res.redirect('/signup');
    res.send(accountPage(tagFor(req), user));
  });

  app.get('/partner', async (req, res) => {
    const id = String(req.query.id ?? '');
    try {
      const partner = (await svc.get(`/v1/partners/${encodeURIComponent(id)}?include[]=stats`)).data;
      const commissions = (await svc.get(`/v1/commissions?program_id=${settings.programId}&partner_id=${encodeURIComponent(id)}&limit=100`))
        .data;
      res.send(partnerPage(tagFor(req), { partner, commissions }));
    } catch (err) {
      res.status(err instanceof ApiCallError ? err.status : 502).send(`Partner not found: ${err instanceof Error ? err.message : ''}`);
    }
  });

  // The partner's svc portal in Acme's page, through an embed token made here with the secret key.
  app.get('/partner-portal', async (req, res) => {
    const id = String(req.query.id ?? '');
    try {
      const partner = (await svc.get(`/v1/partners/${encodeURIComponent(id)}`)).data;
      const made = await svc.post(`/v1/partners/${encodeURIComponent(id)}/embed-tokens`, { expires_in: 3600 });
      const embed = (made as { data: { url: string }[] }).data[0];
      res.send(partnerPortalPage(tagFor(req), `${partner.first_name} ${partner.last_name}`, embed.url));
    } catch (err) {
      res.status(err instanceof ApiCallError ? err.status : 502).send(`Partner not found: ${err instanceof Error ? err.message : ''}`);
    }
  });

  // The merchant's own signup: it stores the customer_id svc.signup() returned, for later payments.
  app.post('/api/users', (req, res) => {
    const email = String(req.body?.email ?? '')
      .trim()
      .toLowerCase();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) return res.status(400).json({ error: 'A valid e-mail is required' });
    if (users.has(email)) return res.status(409).json({ error: 'This e-mail already has an account' });
    const user: User = { email, customer_id: req.body.customer_id ?? null, partner_id: req.body.partner_id ?? null };
    users.set(email, user);
    res.status(201).json(user);
  });

  // A payment: reported to svc from the server, with the secret key; svc credits the partner.
  app.post('/api/pay', async (req, res) => {
    const user = users.get(String(req.body?.email ?? '').toLowerCase());
    if (!user) return res.status(404).json({ error: 'No such user' });
    if (!user.customer_id) return res.json({ paid: PRICE_CENTS, referred: false });
    try {
      const transaction = (
        await svc.post('/v1/transactions', {
          amount: PRICE_CENTS,
          customer_id: user.customer_id,
          charge_id: `ch_demo_${randomUUID()}`,
          billing_type: 'subscription',
          interval: 'month',
          product_id: 'pro',
          product_name: 'Pro',
          source: 'demo',
        })
      ).data[0];
      const commissions = (await svc.get(`/v1/commissions?program_id=${settings.programId}&transaction_id=${transaction.id}`)).data;
      res.json({ paid: PRICE_CENTS, referred: true, partner_id: transaction.partner_id, transaction, commissions });
    } catch (err) {
      res.status(502).json({ error: err instanceof Error ? err.message : 'svc is unavailable' });
    }
  });

  return app;
}
