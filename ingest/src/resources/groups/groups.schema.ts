import { z } from 'zod';
import { centsField, idField, isoString, optionalText, shortText } from '../../http/fields.js';
import { listQuery } from '../../http/list.js';

const groupMinimum = centsField.nullable().meta({
  description:
    "The least a payout of this group's partners may be, in minor units of any currency, instead of the program's minimum_payout; null (the default): the program's",
});

export const GroupCreate = z
  .strictObject({
    program_id: idField,
    name: shortText(200),
    description: optionalText(2000).optional(),
    default: z.boolean().optional().meta({
      description:
        'true: make this the program’s default group (new partners join it unless given a group_id); the previous default stops being one',
    }),
    minimum_payout: groupMinimum.optional(),
  })
  .meta({ id: 'GroupCreate' });

export const GroupUpdate = z
  .strictObject({
    name: shortText(200).optional(),
    description: optionalText(2000).optional(),
    default: z.literal(true).optional().meta({
      description:
        'Make this the default group; the previous default stops being one. A program always has exactly one default group, so `false` is not accepted: make another group the default instead.',
    }),
    minimum_payout: groupMinimum.optional(),
  })
  .meta({ id: 'GroupUpdate' });

export const GroupListQuery = listQuery({ program_id: idField });

/** The operations' descriptions in the OpenAPI document. */
export const groupDocs = {
  list: 'Beyond the spec. The groups of the program named by `program_id` (required).',
  create:
    'Beyond the spec. A program always has exactly one default group, which new partners join unless given a `group_id`; `default: true` makes this one the default and the previous default stops being it.',
  retrieve: 'Beyond the spec.',
  update:
    'Beyond the spec. `default: true` makes this group the default and the previous default stops being it; `default: false` is not accepted (choose another default instead).',
  delete:
    'Beyond the spec. Its partners move to the program’s default group (and the flows of the deleted group match no one from then on). The default group cannot be deleted (400).',
} as const;

export const Group = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    default: z.boolean(),
    public_key: z.string().meta({ description: 'Public identifier of the group: 16 lowercase characters' }),
    minimum_payout: z.number().int().nullable(),
    program_id: z.string(),
    organization_id: z.string(),
    created_at: isoString,
    updated_at: isoString,
  })
  .meta({ id: 'Group' });
export type GroupObject = z.output<typeof Group>;

/** The group as expanded on a partner (the Partnership Program API's: id, name, description, created_at, public_key, default). */
export const ExpandedGroup = Group.pick({
  id: true,
  name: true,
  description: true,
  created_at: true,
  public_key: true,
  default: true,
}).meta({
  id: 'ExpandedGroup',
});
