// Wire shapes of the health routes, shared with the CLI (`svc doctor` reads /readyz); zod only.
import { z } from 'zod';

export const healthPaths = { livez: '/livez', readyz: '/readyz' } as const;

export const livezSchema = z.object({ status: z.literal('ok') });

/** `/readyz` (and `/healthz`, `/_svc/readyz`): 200 when every check is ok, else 503. Features add detail fields. */
export const readinessSchema = z.object({ status: z.enum(['ok', 'unavailable']), checks: z.record(z.string(), z.enum(['ok', 'failed'])) });
