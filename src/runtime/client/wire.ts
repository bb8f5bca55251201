// Shapes the client accepts from the server, validated at the edge.
import { z } from 'zod';

/** `event: snapshot` data. */
export const snapshotSchema = z.object({ value: z.unknown(), revision: z.number().int().nonnegative() });

/** `event: error` data. */
export const liveErrorSchema = z.object({ code: z.string(), message: z.string(), fatal: z.boolean().default(false) });

/** Error body of every non-2xx JSON response. */
export const errorBodySchema = z.object({
  error: z.object({ code: z.string(), message: z.string(), data: z.unknown().optional() }),
});
