/** The demo merchant's pages: plain HTML, the real svc.js tag in every <head>. */

import type { Commission, Partner } from '../../ingest/client/api-client.js';

export interface ScriptTag {
  src: string;
  publicKey: string;
  /** Absent: the API is the script's own origin. */
  api?: string;
  consent?: boolean;
  stripe?: boolean;
}

export const escapeHtml = (value: unknown) =>
  String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function scriptTag(tag: ScriptTag): string {
  const attrs = [
    `src="${escapeHtml(tag.src)}"`,
    `data-key="${escapeHtml(tag.publicKey)}"`,
    tag.api ? `data-api="${escapeHtml(tag.api)}"` : '',
    tag.consent ? 'data-consent="required"' : '',
    tag.stripe ? 'data-stripe' : '',
  ].filter(Boolean);
  return `<script async ${attrs.join(' ')}></script>`;
}

const STYLE = `
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; color: #1d2330; background: #f7f8fb; }
  header { background: #1d2330; color: #fff; padding: 12px 24px; display: flex; gap: 20px; align-items: center; }
  header a { color: #cfd6ff; text-decoration: none; } header strong { margin-right: auto; }
  main { max-width: 760px; margin: 32px auto; padding: 0 24px; }
  .card { background: #fff; border: 1px solid #e3e6ee; border-radius: 8px; padding: 20px; margin: 16px 0; }
  button, .button { background: #4453ff; color: #fff; border: 0; border-radius: 6px; padding: 10px 16px; font: inherit; cursor: pointer; text-decoration: none; display: inline-block; }
  input { font: inherit; padding: 8px; border: 1px solid #c9cedb; border-radius: 6px; min-width: 260px; }
  pre { background: #f0f2f7; padding: 12px; border-radius: 6px; overflow: auto; font-size: 13px; }
  table { border-collapse: collapse; width: 100%; } td, th { text-align: left; padding: 6px 8px; border-bottom: 1px solid #e3e6ee; }
  .muted { color: #667085; }
`;

export function layout(title: string, tag: ScriptTag, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Acme</title>
${scriptTag(tag)}
<style>${STYLE}</style>
</head>
<body>
<header><strong>Acme</strong><a href="/">Home</a><a href="/pricing">Pricing</a><a href="/signup">Sign up</a><a href="/partners">Partners</a></header>
<main>
${body}
</main>
</body>
</html>`;
}

/** Shows window.svc_data as the script sees it, live. */
const REFERRAL_PANEL = `
<div class="card"><h3>Your referral (window.svc_data)</h3><pre id="svc-data">loading…</pre></div>
<script>
  const show = () => { document.getElementById('svc-data').textContent = JSON.stringify(window.svc_data ?? null, null, 2); };
  show();
  addEventListener('svc:ready', show);
</script>`;

export const homePage = (tag: ScriptTag) =>
  layout(
    'Invoices that pay themselves',
    tag,
    `<h1>Invoices that pay themselves</h1>
<p>Acme sends your invoices, chases late payers and reconciles the bank for you.</p>
<p><a class="button" href="/signup">Start your free trial</a> <a href="/pricing">See pricing</a></p>
${REFERRAL_PANEL}
<p class="muted">Arrived without a partner link? Try <a href="/partners">a partner's link</a>.</p>`,
  );

export const pricingPage = (tag: ScriptTag) =>
  layout(
    'Pricing',
    tag,
    `<h1>Pricing</h1>
<div class="card"><h2>Pro — $49/month</h2><p>Unlimited invoices, automatic reminders, bank sync.</p>
<p><a class="button" href="/signup">Sign up</a></p>
<p class="muted">Or pay straight away with a Stripe payment link; svc.js adds your referral as client_reference_id:</p>
<p><a id="stripe-link" href="https://buy.stripe.com/test_acme_pro">Pay with Stripe</a></p>
<stripe-buy-button id="stripe-button" buy-button-id="buy_btn_acme" publishable-key="pk_test_acme"></stripe-buy-button>
</div>`,
  );

export const signupPage = (tag: ScriptTag) =>
  layout(
    'Sign up',
    tag,
    `<h1>Start your free trial</h1>
<form id="signup" class="card">
  <label>Work e-mail <input id="email" name="email" type="email" required></label>
  <button type="submit">Create my account</button>
  <p id="signup-result" class="muted"></p>
</form>
${REFERRAL_PANEL}
<script>
  document.getElementById('signup').addEventListener('submit', async (event) => {
    event.preventDefault();
    const email = document.getElementById('email').value;
    const result = document.getElementById('signup-result');
    let referral = null;
    try {
      // Only a referred visitor who has not signed up yet becomes a lead.
      if (window.svc && window.svc_data && !window.svc_data.customer_id) referral = await window.svc.signup(email);
    } catch (err) {
      result.textContent = err.status === 409 ? 'This e-mail already has an account.' : 'Referral not recorded: ' + err.message;
      if (err.status === 409) return;
    }
    const res = await fetch('/api/users', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email, customer_id: referral && referral.customer_id, partner_id: referral && referral.partner_id }),
    });
    // Read the answer before leaving, so that the request completes instead of being cut off.
    const answer = await res.json();
    if (res.ok) location.href = '/account?email=' + encodeURIComponent(email);
    else result.textContent = answer.error;
  });
</script>`,
  );

export interface AccountView {
  email: string;
  customer_id: string | null;
  partner_id: string | null;
}

export const accountPage = (tag: ScriptTag, user: AccountView) =>
  layout(
    'Your account',
    tag,
    `<h1>Welcome, ${escapeHtml(user.email)}</h1>
<div class="card">
  <p>svc customer: <code id="customer-id">${escapeHtml(user.customer_id ?? 'none (not referred)')}</code></p>
  <p>Referred by partner: <code id="partner-id">${escapeHtml(user.partner_id ?? 'none')}</code></p>
  <button id="pay">Pay $49 for Pro</button>
  <pre id="pay-result" class="muted"></pre>
</div>
<script>
  document.getElementById('pay').addEventListener('click', async () => {
    const res = await fetch('/api/pay', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: ${JSON.stringify(user.email)} }) });
    const body = await res.json();
    document.getElementById('pay-result').textContent = JSON.stringify(body, null, 2);
    if (body.partner_id) document.getElementById('pay-result').insertAdjacentHTML('afterend', '<p><a id="partner-link" href="/partner?id=' + body.partner_id + '">See the partner\\'s commission</a></p>');
  });
</script>`,
  );

export interface PartnerLink {
  name: string;
  url: string;
  partnerId: string;
}

export const partnersPage = (tag: ScriptTag, links: PartnerLink[]) =>
  layout(
    'Partners',
    tag,
    `<h1>Our partners</h1>
<p>Visit the site through a partner's link, sign up and pay: the partner's commission appears on their page.</p>
<table><tr><th>Partner</th><th>Link</th><th></th><th></th></tr>
${links.map((l) => `<tr><td>${escapeHtml(l.name)}</td><td><a href="${escapeHtml(l.url)}">${escapeHtml(l.url)}</a></td><td><a href="/partner?id=${escapeHtml(l.partnerId)}">commissions</a></td><td><a href="/partner-portal?id=${escapeHtml(l.partnerId)}">portal, embedded</a></td></tr>`).join('\n')}
</table>`,
  );

export interface PartnerReport {
  /** Retrieved with include[]=stats. */
  partner: Partner;
  commissions: Commission[];
}

const cents = (n: number | null) => (n === null ? '—' : `$${(n / 100).toFixed(2)}`);

export const partnerPage = (tag: ScriptTag, report: PartnerReport) =>
  layout(
    'Partner',
    tag,
    `<h1>${escapeHtml(report.partner.first_name)} ${escapeHtml(report.partner.last_name)}</h1>
<div class="card"><h3>Stats</h3>
<table id="stats">${Object.entries(report.partner.stats ?? {})
      .map(
        ([k, v]) =>
          `<tr><td>${escapeHtml(k)}</td><td data-stat="${escapeHtml(k)}">${k.includes('revenue') || k.includes('commission') ? cents(v) : v}</td></tr>`,
      )
      .join('')}</table></div>
<div class="card"><h3>Commissions</h3>
<table id="commissions"><tr><th>Commission</th><th>Amount</th><th>Revenue</th><th>Status</th></tr>
${report.commissions.map((c) => `<tr data-commission="${escapeHtml(c.id)}"><td>${escapeHtml(c.id)}</td><td>${cents(c.amount)}</td><td>${cents(c.revenue)}</td><td>${escapeHtml(c.status)}</td></tr>`).join('\n')}
</table>
${report.commissions.length ? '' : '<p class="muted">No commission yet.</p>'}</div>`,
  );

/**
 * The partner's svc portal inside Acme's own page: Acme's server made an embed token with its
 * secret key (POST /v1/partners/:id/embed-tokens), and the iframe opens the portal with it.
 */
export const partnerPortalPage = (tag: ScriptTag, name: string, portalUrl: string) =>
  layout(
    'Partner portal',
    tag,
    `<h1>Partner area of ${escapeHtml(name)}</h1>
<p class="muted">svc's partner portal, embedded in Acme's page: no second sign-in.</p>
<iframe title="Partner portal" src="${escapeHtml(portalUrl)}" style="width:100%;height:900px;border:1px solid #ddd;border-radius:6px"></iframe>`,
  );
