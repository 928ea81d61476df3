import type { CommissionRow, CustomerRow, PartnerRow, PayoutRow, ProgramRow } from '../../db/schema.js';
import type { OutgoingEmail } from '../../mail/outbox.js';
import { formatMoney } from '../../money.js';
import { type LinkValue, shareableLink } from '../links/link-address.js';

/**
 * The e-mails svc sends partners (ingest/docs/partner-emails.md): plain text with a simple HTML
 * alternative, naming the program and the amounts. Only builders: they are queued in the SQL
 * transaction of the change that causes them (mail/outbox.ts).
 */

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

/** Paragraphs as text (blank lines between, lines kept) and as simple HTML (partnerEmailHtml), about the program whose brand it wears. */
function message(o: Omit<OutgoingEmail, 'text' | 'html'> & { programId: string; paragraphs: string[] }): OutgoingEmail {
  const { paragraphs, ...rest } = o;
  const text = paragraphs.join('\n\n');
  return { ...rest, text, html: partnerEmailHtml(rest.subject, text) };
}

/**
 * How the HTML part shows a program's brand (ingest/docs/partner-emails.md#the-programs-brand):
 * its logo at the top, at svc's public address, and its accent (made readable on white) on the
 * headline and the links. Without one, svc's own colors.
 */
export interface EmailBrand {
  programName: string;
  /** svc's public address (SVC_PUBLIC_URL): only links to it are made links. */
  publicUrl: string;
  logo: { url: string; width: number; height: number } | null;
  accentText: string | null;
}

/** svc's own accent, as dashboard.css has it. */
const SVC_ACCENT = '#2952cc';

/**
 * The HTML part of an e-mail: the subject as its headline, then the text's paragraphs (blank
 * lines between, lines kept), addresses of svc made links. Styles inline, as mail programs want.
 * Rendered once when queued (svc's colors) and again as sent, with the brand (mail/mailer.ts).
 */
export function partnerEmailHtml(subject: string, text: string, brand?: EmailBrand): string {
  const accent = brand?.accentText ?? SVC_ACCENT;
  const linked = (paragraph: string) =>
    paragraph
      .split(/(https?:\/\/[^\s<>"']+)/)
      .map((part, i) => {
        const ours = i % 2 === 1 && brand && (part === brand.publicUrl || part.startsWith(`${brand.publicUrl}/`));
        return ours ? `<a href="${escapeHtml(part)}" style="color:${accent}">${escapeHtml(part)}</a>` : escapeHtml(part);
      })
      .join('');
  const logo = brand?.logo
    ? `<p><img src="${escapeHtml(brand.logo.url)}" width="${brand.logo.width}" height="${brand.logo.height}" alt="${escapeHtml(brand.programName)}" style="display:block;border:0"></p>`
    : '';
  return `<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">${logo}<h1 style="font-size:20px;line-height:1.3;color:${accent}">${escapeHtml(subject)}</h1>${text
    .split('\n\n')
    .map((p) => `<p>${linked(p).replaceAll('\n', '<br>')}</p>`)
    .join('')}</body></html>`;
}

/** j•••@example.com: partners learn that someone signed up, not who (the same masking as their portal). */
export function maskEmail(identifier: string): string {
  const at = identifier.lastIndexOf('@');
  if (at < 1) return `${identifier.slice(0, 1)}•••`;
  return `${identifier.slice(0, 1)}•••${identifier.slice(at)}`;
}

const signOff = (program: ProgramRow) => `— The ${program.name} team`;

export function welcomeEmail(partner: PartnerRow, program: ProgramRow): OutgoingEmail {
  return message({
    organizationId: partner.organization_id,
    programId: program.id,
    kind: 'partner_welcome',
    to: partner.email,
    subject: `Welcome to the ${program.name} partner program`,
    paragraphs: [
      `Hi ${partner.first_name},`,
      `You have been added as a partner of ${program.name}.\nShare your referral links and earn a commission on the customers you bring; referrals are remembered for ${program.cookie_duration} days.`,
      signOff(program),
    ],
  });
}

/**
 * A customer the partner referred (a lead counts: ingest/docs/partner-emails.md). `first` picks the
 * first-customer message; each kind is sent only while the partner's switch for it is on. The
 * first customer gets the new-customer message when only that switch is on.
 */
export function customerEmail(partner: PartnerRow, program: ProgramRow, customer: CustomerRow, first: boolean): OutgoingEmail | undefined {
  const who = maskEmail(customer.email ?? customer.identifier);
  if (first && partner.first_customer_email_active) {
    return message({
      organizationId: partner.organization_id,
      programId: program.id,
      kind: 'partner_first_customer',
      to: partner.email,
      subject: `Your first referral for ${program.name}`,
      paragraphs: [
        `Hi ${partner.first_name},`,
        `Congratulations: ${who} signed up for ${program.product_name} through you. It is your first customer of ${program.name}.`,
        'You earn a commission on their payments as the program pays it; you will hear from us when one is paid.',
        signOff(program),
      ],
    });
  }
  if (!partner.new_customer_email_active) return undefined;
  return message({
    organizationId: partner.organization_id,
    programId: program.id,
    kind: 'partner_new_customer',
    to: partner.email,
    subject: `New referral for ${program.name}: ${who}`,
    paragraphs: [`Hi ${partner.first_name},`, `${who} signed up for ${program.product_name} through you.`, signOff(program)],
  });
}

/** A commission marked paid by itself (`PUT /v1/commissions/:id`); a payout's commissions get one payout e-mail instead. */
export function commissionPaidEmail(partner: PartnerRow, program: ProgramRow, commission: CommissionRow): OutgoingEmail | undefined {
  if (!partner.payout_paid_email_active) return undefined;
  const amount = formatMoney(commission.amount, commission.currency ?? program.currency_code);
  return message({
    organizationId: partner.organization_id,
    programId: program.id,
    kind: 'partner_commission_paid',
    to: partner.email,
    subject: `${program.name} paid you ${amount}`,
    paragraphs: [
      `Hi ${partner.first_name},`,
      `${program.name} has paid you a commission of ${amount}${commission.payout_id ? ` (payment reference ${commission.payout_id})` : ''}.`,
      'Thank you for referring customers.',
      signOff(program),
    ],
  });
}

/** A payout marked paid: the amount, how many commissions it paid, and the merchant's reference. */
export function payoutPaidEmail(partner: PartnerRow, program: ProgramRow, payout: PayoutRow): OutgoingEmail | undefined {
  if (!partner.payout_paid_email_active) return undefined;
  const amount = formatMoney(payout.amount, payout.currency);
  const commissions = payout.commission_count === 1 ? '1 commission' : `${payout.commission_count} commissions`;
  return message({
    organizationId: partner.organization_id,
    programId: program.id,
    kind: 'partner_payout_paid',
    to: partner.email,
    subject: `${program.name} paid you ${amount}`,
    paragraphs: [
      `Hi ${partner.first_name},`,
      `${program.name} has paid you ${amount} for ${commissions}, by ${payout.payout_method.replace('_', ' ')}.`,
      `Payout ${payout.id}${payout.reference ? `, payment reference ${payout.reference}` : ''}.`,
      'Thank you for referring customers.',
      signOff(program),
    ],
  });
}

/**
 * A one-time link into the partner's portal (ingest/docs/partner-portal.md): asked for on its
 * sign-in page, or sent instead of a second application by someone who is a partner already.
 */
export function signInLinkEmail(
  partner: PartnerRow,
  program: ProgramRow,
  url: string,
  minutes: number,
  reason: 'sign-in' | 'already-a-partner',
): OutgoingEmail {
  return message({
    organizationId: partner.organization_id,
    programId: program.id,
    kind: 'partner_sign_in_link',
    to: partner.email,
    subject: `Sign in to the ${program.name} partner portal`,
    paragraphs: [
      `Hi ${partner.first_name},`,
      reason === 'already-a-partner'
        ? `Someone asked to join the ${program.name} partner program with this address, which is a partner already. To see your links and earnings, sign in:`
        : `Here is your link to sign in to the ${program.name} partner portal:`,
      url,
      `It works once, within ${minutes} minutes. If you did not ask for it, ignore this e-mail: nobody can sign in without it.`,
      signOff(program),
    ],
  });
}

/**
 * The answer to a sign-up in the portal: approved at once (with the partner's first link to share,
 * when the program has a website address to make it one: shareableLink), or waiting for the merchant.
 */
export function applicationEmail(partner: PartnerRow, program: ProgramRow, portalUrl: string, link?: LinkValue): OutgoingEmail {
  const active = partner.status === 'active';
  const shared = active && link ? shareableLink(program, link) : null;
  return message({
    organizationId: partner.organization_id,
    programId: program.id,
    kind: 'partner_application',
    to: partner.email,
    subject: active ? `Welcome to the ${program.name} partner program` : `Your application to the ${program.name} partner program`,
    paragraphs: [
      `Hi ${partner.first_name},`,
      active
        ? `You are now a partner of ${program.name}. Sign in to your portal for your referral link, and earn a commission on the customers you bring: ${portalUrl}`
        : `Thank you for applying to the ${program.name} partner program. We will look at your application and write to you; meanwhile your portal shows where it stands: ${portalUrl}`,
      ...(shared ? [`Your link to share: ${shared}`] : []),
      signOff(program),
    ],
  });
}
