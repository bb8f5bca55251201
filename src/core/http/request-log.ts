import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import { levels } from 'pino';

const INFO = levels.values.info!;

/**
 * Fastify's request logging with one line per request instead of two: the "incoming request" line is
 * dropped and "request completed" carries the request (method, redacted URL, address), status and time.
 * Other Fastify log lines (errors, 404s, stream errors) are unchanged.
 *
 * `lines` (optional) writes the "request completed" line: a child of the app's logger without pino's
 * path redaction, which was the largest cost of this line (a clone and a walk of every redact path,
 * wildcards included, on each request). It is safe for this line only: its fields are the `req`
 * serializer's output (method, URL with credential query values blanked, address), the status code
 * (written out here: Fastify's `res` serializer belongs to the request logger, not to this child), the
 * time and the request id — no headers, bodies or credential-named keys for a redact path to match.
 * Errors still go through the redacting request logger.
 */
export class OneLineRequestLog extends LogController {
  readonly #lines: FastifyBaseLogger | undefined;

  constructor(lines?: FastifyBaseLogger) {
    super();
    this.#lines = lines;
  }

  /** No separate line at the start of a request. */
  override incomingRequest(): void {}

  /** One line at the end: info for a response, error when the response failed. */
  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    // The request's own logger decides the level (a route may lower it); the line is written without redaction.
    else if (this.#lines && (levels.values[reply.log.level] ?? Infinity) <= INFO)
      this.#lines.info({ reqId: request.id, req: request, res: { statusCode: reply.statusCode }, responseTime: reply.elapsedTime }, 'request completed');
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
