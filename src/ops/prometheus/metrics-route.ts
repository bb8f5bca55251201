// `GET /metrics`: the Prometheus text exposition behind its own bearer token. Without a configured
// token the route still exists but refuses everyone (404 SVC_METRICS_DISABLED), so a forgotten
// setting never leaves the metrics open; a missing or wrong token is 401 SVC_METRICS_UNAUTHORIZED.
import { z } from 'zod';
import { SvcError } from '../../core/errors.js';
import { bearerOnly, type HttpApp } from '../../core/http/create-http-app.js';
import { bearerMatches } from './metrics-token.js';

export const METRICS_PATH = '/metrics';

/** What the route needs: the token's digest and the exposition (null when metrics are off). */
export interface MetricsSource {
  tokenDigest: Buffer;
  contentType: string;
  render(): Promise<string>;
}

/** Register the route. */
export function metricsRoute(source: MetricsSource | null) {
  return async function register(app: HttpApp): Promise<void> {
    app.get(
      METRICS_PATH,
      {
        schema: {
          tags: ['ops'],
          summary: 'Prometheus metrics of the control plane (bearer SVC_METRICS_TOKEN)',
          security: bearerOnly,
          response: { 200: z.string().describe('Prometheus text format 0.0.4') },
        },
      },
      async (request, reply) => {
        if (source === null) throw new SvcError('SVC_METRICS_DISABLED');
        if (!bearerMatches(request.headers.authorization, source.tokenDigest)) {
          void reply.header('www-authenticate', 'Bearer realm="svc metrics"');
          throw new SvcError('SVC_METRICS_UNAUTHORIZED');
        }
        const body = await source.render();
        return reply.header('content-type', source.contentType).send(body);
      },
    );
  };
}
