// HTTP contract of canary rollouts, shared by the server, the CLI (`svc canary`, `svc deploy --canary`)
// and the console. Imports only zod.
import { z } from 'zod';

export const canaryRoutePaths = {
  report: '/api/projects/:id/canary',
} as const;

/** Upload header of `svc deploy --canary`: run the config's canary policy (or the default one). */
export const CANARY_HEADER = 'x-svc-canary';

/** The policy of `svc deploy --canary` when svc.deploy.json has no `canary` object (docs/canary.md). */
export const DEFAULT_CANARY_POLICY = {
  stages: [
    { trafficPercent: 10, durationMs: 60_000, minimumSamples: 20 },
    { trafficPercent: 50, durationMs: 60_000, minimumSamples: 50 },
  ],
  maximumErrorRate: 0.01,
  maximumP95Ms: 1_000,
} as const;

/** States of a canary run. `interrupted`: the control plane restarted while it ran. */
export const canaryRunStateSchema = z.enum(['running', 'promoted', 'failed', 'rejected', 'interrupted']);
export type CanaryRunState = z.infer<typeof canaryRunStateSchema>;

export const canaryStageStateSchema = z.enum(['running', 'passed', 'failed', 'interrupted']);

export const canaryPolicyReportSchema = z.object({
  stages: z.array(z.object({ trafficPercent: z.number(), durationMs: z.number(), minimumSamples: z.number() })),
  maximumErrorRate: z.number(),
  maximumP95Ms: z.number(),
});

export const canaryStageReportSchema = z.object({
  index: z.number().int().nonnegative(),
  trafficPercent: z.number(),
  state: canaryStageStateSchema,
  reason: z.string().nullable().describe('collecting, criteria-met, insufficient-samples, error-rate-exceeded, p95-exceeded, candidate-lost, …'),
  samples: z.number().int().nonnegative(),
  errorRate: z.number().min(0).max(1),
  p95Ms: z.number().nonnegative(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
});

export const canaryRunReportSchema = z.object({
  id: z.string(),
  releaseId: z.string(),
  baselineReleaseId: z.string().nullable(),
  state: canaryRunStateSchema,
  policy: canaryPolicyReportSchema,
  failure: z.object({ code: z.string(), message: z.string() }).nullable(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  stages: z.array(canaryStageReportSchema),
});
export type CanaryRunReport = z.infer<typeof canaryRunReportSchema>;

export const canaryReportResponseSchema = z.object({
  projectId: z.string(),
  /** Newest first (at most 20). */
  runs: z.array(canaryRunReportSchema),
});
export type CanaryReportResponse = z.infer<typeof canaryReportResponseSchema>;
