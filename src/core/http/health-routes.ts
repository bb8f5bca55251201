import { z } from 'zod';
import type { HttpApp } from './create-http-app.js';

/** A named storage check; throws (or returns false) when the dependency is not usable. */
export type ReadinessCheck = { name: string; check: () => boolean | Promise<boolean> };

const livezSchema = z.object({ status: z.literal('ok') });
const readySchema = z.object({ status: z.enum(['ok', 'unavailable']), checks: z.record(z.string(), z.enum(['ok', 'failed'])) });

/** Liveness (`/livez`, process only) and storage-backed readiness (`/healthz`, `/readyz`, `/_svc/readyz`). */
export function healthRoutes(checks: readonly ReadinessCheck[]) {
  return async function register(app: HttpApp): Promise<void> {
    app.get('/livez', { schema: { summary: 'Process liveness', tags: ['health'], response: { 200: livezSchema } } }, async () => ({ status: 'ok' as const }));
    for (const path of ['/healthz', '/readyz', '/_svc/readyz']) {
      app.get(path, { schema: { summary: 'Storage-backed readiness (control database and data directory)', tags: ['health'], response: { 200: readySchema, 503: readySchema } } }, async (request, reply) => {
        const results: Record<string, 'ok' | 'failed'> = {};
        for (const { name, check } of checks) {
          try {
            results[name] = (await check()) ? 'ok' : 'failed';
          } catch (error) {
            request.log.warn({ err: error, check: name }, 'readiness check failed');
            results[name] = 'failed';
          }
        }
        const ok = Object.values(results).every((r) => r === 'ok');
        return reply.status(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable', checks: results });
      });
    }
  };
}
