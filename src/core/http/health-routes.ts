import type { z } from 'zod';
import type { HttpApp } from './create-http-app.js';
import { livezSchema, readinessSchema } from './health-contract.js';

/** A named readiness check; throws (or returns false) when the dependency is not usable. */
export type ReadinessCheck = { name: string; check: () => boolean | Promise<boolean> };

/**
 * A named detail shown next to the checks (e.g. `isolation`), so an operator reading /readyz sees why
 * a check failed or what weaker setting is on. Core knows no feature: each brings its own schema.
 */
export type ReadinessDetail = { name: string; schema: z.ZodType; read: () => unknown };

/** Liveness (`/livez`, process only) and readiness (`/healthz`, `/readyz`, `/_svc/readyz`) with details. */
export function healthRoutes(checks: readonly ReadinessCheck[], details: readonly ReadinessDetail[] = []) {
  // Optional: a detail that fails to read is left out rather than failing the whole answer.
  const readySchema = readinessSchema.extend(Object.fromEntries(details.map((d) => [d.name, d.schema.optional()])));
  return async function register(app: HttpApp): Promise<void> {
    app.get('/livez', { schema: { summary: 'Process liveness', tags: ['health'], response: { 200: livezSchema } } }, async () => ({ status: 'ok' as const }));
    for (const path of ['/healthz', '/readyz', '/_svc/readyz']) {
      app.get(
        path,
        {
          schema: {
            summary: `Readiness checks (${checks.map((c) => c.name).join(', ')})${details.length ? ` with details (${details.map((d) => d.name).join(', ')})` : ''}`,
            tags: ['health'],
            response: { 200: readySchema, 503: readySchema },
          },
        },
        async (request, reply) => {
          const results: Record<string, 'ok' | 'failed'> = {};
          for (const { name, check } of checks) {
            try {
              results[name] = (await check()) ? 'ok' : 'failed';
            } catch (error) {
              request.log.warn({ err: error, check: name }, 'readiness check failed');
              results[name] = 'failed';
            }
          }
          const extra: Record<string, unknown> = {};
          for (const { name, read } of details) {
            try {
              extra[name] = read();
            } catch (error) {
              request.log.warn({ err: error, detail: name }, 'readiness detail failed');
            }
          }
          const ok = Object.values(results).every((r) => r === 'ok');
          return reply.status(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable', checks: results, ...extra });
        },
      );
    }
  };
}
