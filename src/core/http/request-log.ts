import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * Fastify's request logging with one line per request instead of two: the "incoming request" line is
 * dropped and "request completed" carries the request (method, redacted URL, address), status and time.
 * Other Fastify log lines (errors, 404s, stream errors) are unchanged.
 */
export class OneLineRequestLog extends LogController {
  /** No separate line at the start of a request. */
  override incomingRequest(): void {}

  /** One line at the end: info for a response, error when the response failed. */
  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
