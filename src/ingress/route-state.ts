// A route as it travels from the control plane's table to the ingress process's copy (and into
// `<data>/run/routes.json`): plain JSON, checked with zod where it is read.
import { z } from 'zod';

const targetSchema = z.object({
  /** Unique per control-plane target; a re-sent id means the very same process and counts. */
  id: z.string().min(1).max(100),
  host: z.string().min(1).max(253),
  port: z.number().int().min(1).max(65535),
  releaseId: z.string().max(200).nullable(),
});

export const routeStateSchema = z.object({
  projectId: z.string().min(1).max(200),
  slug: z.string().max(200).nullable(),
  /** Custom domains (the default `<slug>.<baseDomain>` host is implied by the slug). */
  domains: z.array(z.string().max(260)).max(10_000),
  target: targetSchema.nullable(),
  canary: z.object({ target: targetSchema, percent: z.number().min(0).max(100), position: z.number().int().min(0).max(99) }).nullable(),
  generation: z.number().int().min(0),
  /** Requests without a target wait until this time (epoch ms); null = no hold. */
  holdUntil: z.number().nullable(),
  /** The app was stopped for want of requests: a request without a target waits for it to wake. Absent in older saved tables. */
  asleep: z.boolean().default(false),
});

export const routeSettingsSchema = z.object({
  baseDomain: z.string().min(1).max(253),
  platformHosts: z.array(z.string().max(260)).max(100),
  trustProxy: z.boolean(),
  /** How long requests for an asleep route wait for it (the control plane's bound); absent = the default. */
  wakeHoldMs: z.number().int().min(0).max(2_147_483_647).optional(),
});

export type TargetState = z.infer<typeof targetSchema>;
export type RouteState = z.infer<typeof routeStateSchema>;
export type RouteSettings = z.infer<typeof routeSettingsSchema>;

/** Whether a target state names the same upstream process address and release. Pure. */
export function sameUpstream(
  a: { host: string; port: number; releaseId: string | null },
  b: { host: string; port: number; releaseId: string | null },
): boolean {
  return a.host === b.host && a.port === b.port && a.releaseId === b.releaseId;
}
