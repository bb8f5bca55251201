// HTTP contract of the ingress metrics route, shared by the server, the console and the CLI.
// Imports only zod (the window names are repeated from metrics-series.ts and checked there).
import { z } from 'zod';

export const ingressRoutePaths = {
  metrics: '/api/projects/:id/metrics',
} as const;

export const metricsWindowSchema = z.enum(['1h', '24h', '7d', '30d']);

export const metricsQuerySchema = z.object({
  window: metricsWindowSchema.default('1h').describe('1h (1-minute points), 24h (10-minute), 7d (1-hour) or 30d (6-hour)'),
  releaseId: z.string().min(1).max(100).optional().describe('only requests served by this release'),
});

const platformDescription = 'answers svc gave itself, not the app: 503 with no active release, held requests that timed out or found the hold full';

const latency = z.number().nonnegative().nullable().describe('milliseconds at body completion; null without requests');

export const metricsPointSchema = z.object({
  t: z.string().describe('ISO 8601 start of the point'),
  requests: z.number().int().nonnegative(),
  errors: z.number().int().nonnegative().describe("the app's 5xx responses and broken upstream streams (svc's own answers excluded)"),
  platform: z.number().int().nonnegative().describe(platformDescription),
  p50: latency,
  p95: latency,
  bytes: z.number().int().nonnegative().describe('response body bytes that reached clients'),
});

export const metricsResponseSchema = z.object({
  projectId: z.string(),
  window: metricsWindowSchema,
  stepSeconds: z.number().int().positive(),
  from: z.string(),
  to: z.string(),
  series: z.array(metricsPointSchema),
  totals: z.object({
    requests: z.number().int().nonnegative(),
    errors: z.number().int().nonnegative().describe("the app's 5xx responses and broken upstream streams"),
    platform: z.number().int().nonnegative().describe(platformDescription),
    clientErrors: z.number().int().nonnegative().describe('4xx responses'),
    aborted: z.number().int().nonnegative().describe('requests the client cancelled before the body completed'),
    bytes: z.number().int().nonnegative(),
    errorRate: z.number().min(0).max(1).describe('errors / (requests − platform): the share of requests the app answered with a 5xx'),
    p50: latency,
    p95: latency,
  }),
});
export type MetricsResponse = z.infer<typeof metricsResponseSchema>;
