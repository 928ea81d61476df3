import { type ZodType, z } from 'zod';

/** Response envelopes for the OpenAPI document, matching `envelope` and list bodies. */
export const oneResponse = (item: ZodType) => z.object({ success: z.literal(true), data: item });
export const manyResponse = (item: ZodType) => z.object({ success: z.literal(true), data: z.array(item).length(1) });
export const listResponse = (item: ZodType) =>
  z.object({ success: z.literal(true), data: z.array(item), has_more: z.boolean(), total_count: z.number().int() });
export const deletedResponse = z
  .object({ success: z.literal(true), data: z.object({ id: z.string(), deleted: z.literal(true) }) })
  .meta({ id: 'Deleted' });
