// Control-plane API requests per project: one Fastify onResponse hook (callback style, no promise)
// that hands the status and elapsed time to a RequestSeries. The project is the `:id` of
// /api/projects/:id/… routes, which may be an id or a slug; it is resolved to the project id only
// when scraped, so the request path does no database work.
import type { HttpApp } from '../../core/http/create-http-app.js';
import type { RequestSeries } from './request-series.js';

const PROJECT_PREFIX = '/api/projects/';

/**
 * The key a request is counted under (pure). A key enters the series only with a response below 400
 * (a project the caller reached), so requests for made-up ids cannot grow the label set; until then
 * they count under the empty key, the "no project" series.
 */
export function apiRequestKey(url: string, params: unknown, status: number, known: (key: string) => boolean): string {
  if (!url.startsWith(PROJECT_PREFIX)) return '';
  const id = (params as { id?: unknown } | null)?.id;
  if (typeof id !== 'string' || id === '') return '';
  return status < 400 || known(id) ? id : '';
}

/** Count every request Fastify answers (the ingress's app traffic never reaches it). */
export function countApiRequests(app: HttpApp, series: RequestSeries): void {
  const known = (key: string) => series.has(key);
  app.addHook('onResponse', (request, reply, done) => {
    const status = reply.statusCode;
    series.record(apiRequestKey(request.url, request.params, status, known), status, reply.elapsedTime, 0);
    done();
  });
}
