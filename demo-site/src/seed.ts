import { apiClient } from '../../ingest/client/api-client.js';
import type { PartnerLink } from './pages.js';

export interface SeededPartner {
  id: string;
  name: string;
  email: string;
  link: PartnerLink;
}

const DEMO_PARTNERS = [
  { first_name: 'Alice', last_name: 'Archer', email: 'alice@partners.example', param: 'ref', value: 'alice' },
  { first_name: 'Bob', last_name: 'Baker', email: 'bob@partners.example', param: 'via', value: 'bob' },
];

/**
 * Two partners with one link each (?ref=alice, ?via=bob), made through the public API; the
 * program's site is the demo site, where the partner portal's link builder starts.
 */
export async function seedDemo(ingestUrl: string, secretKey: string, programId: string, demoUrl: string): Promise<SeededPartner[]> {
  const svc = apiClient(ingestUrl, secretKey);
  await svc.put(`/v1/programs/${programId}`, { website_url: `${demoUrl}/` });
  const seeded: SeededPartner[] = [];
  for (const p of DEMO_PARTNERS) {
    const partner = (
      await svc.post('/v1/partners', { program_id: programId, first_name: p.first_name, last_name: p.last_name, email: p.email })
    ).data[0];
    await svc.post('/v1/links', { partner_id: partner.id, param: p.param, value: p.value });
    const name = `${p.first_name} ${p.last_name}`;
    seeded.push({ id: partner.id, name, email: p.email, link: { name, partnerId: partner.id, url: `${demoUrl}/?${p.param}=${p.value}` } });
  }
  return seeded;
}
