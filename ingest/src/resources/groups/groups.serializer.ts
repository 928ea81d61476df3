import type { z } from 'zod';
import type { GroupRow } from '../../db/schema.js';
import { toIso } from '../../http/fields.js';
import type { ExpandedGroup, GroupObject } from './groups.schema.js';

export function toGroup(g: GroupRow): GroupObject {
  return {
    id: g.id,
    name: g.name,
    description: g.description,
    default: g.is_default,
    public_key: g.public_key,
    minimum_payout: g.minimum_payout,
    program_id: g.program_id,
    organization_id: g.organization_id,
    created_at: toIso(g.created_at),
    updated_at: toIso(g.updated_at),
  };
}

export function toExpandedGroup(g: GroupRow): z.output<typeof ExpandedGroup> {
  return {
    id: g.id,
    name: g.name,
    description: g.description,
    created_at: toIso(g.created_at),
    public_key: g.public_key,
    default: g.is_default,
  };
}
