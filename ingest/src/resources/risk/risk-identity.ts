import { createHmac } from 'node:crypto';
import { isDisposableEmailDomain } from 'disposable-email-domains-js';

/**
 * What the risk rules compare (ingest/docs/risk.md), pure: one mailbox however its address is
 * written, one payout account however it was typed, one browser as a keyed hash.
 */

/** Providers where dots in the local part are ignored, and their other domain names. */
const GMAIL_DOMAINS = new Set(['gmail.com', 'googlemail.com']);

/**
 * An e-mail address as one mailbox: trimmed and lower case, a `+tag` dropped, and for Gmail the
 * dots of the local part dropped and googlemail.com read as gmail.com. Null for what is no
 * address. Other providers keep their dots: first.last@example.com and firstlast@example.com may
 * be two people.
 */
export function mailboxOf(email: string | null | undefined): string | null {
  const address = email?.trim().toLowerCase();
  const at = address?.lastIndexOf('@') ?? -1;
  if (!address || at < 1 || at === address.length - 1) return null;
  let local = address.slice(0, at);
  let domain = address.slice(at + 1);
  const plus = local.indexOf('+');
  if (plus > 0) local = local.slice(0, plus);
  if (GMAIL_DOMAINS.has(domain)) {
    local = local.replaceAll('.', '');
    domain = 'gmail.com';
  }
  return local ? `${local}@${domain}` : null;
}

/** Whether the address's domain is a disposable e-mail provider's (the disposable-email-domains list). */
export function isDisposableAddress(email: string | null | undefined): boolean {
  const mailbox = mailboxOf(email);
  return mailbox !== null && isDisposableEmailDomain(mailbox.slice(mailbox.indexOf('@') + 1));
}

const letters = (value: string) => value.toUpperCase().replace(/[^A-Z0-9]/g, '');

/**
 * The account a partner is paid into, normalised, or null when the details name none: the
 * mailbox of a PayPal or Wise e-mail (`email:`), an IBAN (`iban:`), a bank account number with
 * its routing number or sort code when given (`account:`), a wallet address (`wallet:`), letters
 * and digits only, in upper case but for the wallet (some chains tell case apart). Two partners
 * with the same value are paid into one account.
 */
export function payoutAccountOf(method: string, details: Readonly<Record<string, string>> | null | undefined): string | null {
  if (!details || method === 'none') return null;
  const mailbox = mailboxOf(details.email);
  if (mailbox) return `email:${mailbox}`;
  if (details.iban) return `iban:${letters(details.iban)}`;
  if (details.account_number) {
    const bank = letters(details.routing_number ?? details.sort_code ?? '');
    return `account:${bank}/${letters(details.account_number)}`;
  }
  if (details.wallet_address) return `wallet:${details.wallet_address.trim()}`;
  return null;
}

/**
 * A browser's fingerprint in its program: an HMAC of client address and User-Agent under the
 * program's own key (`programs.risk_salt`). The address cannot be read back from it, nor
 * compared across programs.
 */
export function visitorHash(salt: string, ip: string, userAgent: string | undefined): string | null {
  if (!ip) return null;
  return createHmac('sha256', salt)
    .update(`${ip}\n${userAgent ?? ''}`)
    .digest('base64url')
    .slice(0, 32);
}

/** The host of a referrer URL, lower case, without a leading www.; null when it is no http(s) URL. */
export function referrerHost(referrer: string | null | undefined): string | null {
  if (!referrer) return null;
  try {
    const url = new URL(referrer);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.hostname.toLowerCase().replace(/^www\./, '');
  } catch {
    return null;
  }
}

/** Whether the host is one of the listed hosts or a subdomain of one. */
export function hostIsListed(host: string, listed: readonly string[]): string | undefined {
  return listed.find((h) => {
    const bare = h.replace(/^www\./, '');
    return host === bare || host.endsWith(`.${bare}`);
  });
}
