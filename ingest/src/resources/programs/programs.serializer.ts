import type { z } from 'zod';
import type { ProgramRow } from '../../db/schema.js';
import { toIso } from '../../http/fields.js';
import type { ProgramWithDefaultGroup } from './programs.repository.js';
import type { ExpandedProgram, ExpandedProgramWithTerms, ProgramObject } from './programs.schema.js';

export function toExpandedProgram(p: ProgramRow): z.output<typeof ExpandedProgram> {
  return {
    id: p.id,
    status: p.status as ProgramObject['status'],
    name: p.name,
    product_name: p.product_name,
    subdomain: p.subdomain,
    type: p.type as ProgramObject['type'],
    currency_code: p.currency_code,
    created_at: toIso(p.created_at),
  };
}

export function toExpandedProgramWithTerms(p: ProgramRow): z.output<typeof ExpandedProgramWithTerms> {
  return {
    ...toExpandedProgram(p),
    cookie_duration: p.cookie_duration,
    payout_methods: p.payout_methods as ProgramObject['payout_methods'],
    payout_term: p.payout_term,
    url_params: p.url_params,
  };
}

export function toProgram(p: ProgramWithDefaultGroup): ProgramObject {
  return {
    ...toExpandedProgramWithTerms(p),
    attribution_model: p.attribution_model as ProgramObject['attribution_model'],
    minimum_payout: p.minimum_payout,
    auto_approve_partners: p.auto_approve_partners,
    partner_terms: p.partner_terms,
    website_url: p.website_url,
    public_key: p.public_key,
    default_group_id: p.default_group_id,
    organization_id: p.organization_id,
    updated_at: toIso(p.updated_at),
  };
}
