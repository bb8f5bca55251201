// POST /api/github/webhooks: the signature is checked on the raw body bytes (HMAC-SHA256, constant
// time), the delivery is recorded once by X-GitHub-Delivery and queued durably, and GitHub gets a
// 2xx at once; the work happens in the queue. Only this route parses bodies as raw bytes.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { FeatureContext } from '../core/feature-context.js';
import type { HttpApp } from '../core/http/create-http-app.js';
import { SvcError } from '../core/errors.js';
import { githubRoutes, webhookResponseSchema } from './contract.js';
import { enqueueDelivery } from './job-queue.js';

/** GitHub caps webhook payloads at 25 MB. */
export const WEBHOOK_BODY_LIMIT = 25 * 1024 * 1024;

/** Whether `signature` (`sha256=<hex>`) is the HMAC-SHA256 of `body` under `secret`; constant time. */
export function verifySignature(secret: string, body: Buffer, signature: string | undefined): boolean {
  if (!signature || !/^sha256=[0-9a-f]{64}$/i.test(signature)) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  const given = Buffer.from(signature.slice(7), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export interface WebhookRouteDeps {
  ctx: FeatureContext;
  /** The webhook secret, or null when no GitHub App is configured. */
  secret: string | null;
  /** Called after a delivery was queued. */
  wake: () => void;
}

/** Register the webhook route. */
export function webhookRoute(deps: WebhookRouteDeps) {
  return async (app: HttpApp): Promise<void> => {
    await app.register(async (plain) => {
      const scope = plain.withTypeProvider<ZodTypeProvider>();
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (_request, body, done) => done(null, body));
      scope.post(
        githubRoutes.webhooks,
        {
          bodyLimit: WEBHOOK_BODY_LIMIT,
          schema: {
            tags: ['github'],
            summary: 'GitHub App webhook deliveries (X-Hub-Signature-256 over the raw body; deduplicated by X-GitHub-Delivery)',
            response: { 200: webhookResponseSchema, 202: webhookResponseSchema },
          },
        },
        async (request, reply) => {
          if (deps.secret === null) throw new SvcError('SVC_GITHUB_NOT_CONFIGURED');
          const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
          if (!verifySignature(deps.secret, body, header(request.headers['x-hub-signature-256']))) throw new SvcError('SVC_GITHUB_SIGNATURE_INVALID');
          const name = header(request.headers['x-github-event']);
          const id = header(request.headers['x-github-delivery']);
          if (!name || !/^[a-z_]{1,64}$/.test(name) || !id || !/^[A-Za-z0-9-]{1,100}$/.test(id)) {
            throw new SvcError('SVC_GITHUB_DELIVERY_INVALID', 'X-GitHub-Event and X-GitHub-Delivery are required.');
          }
          let payload: unknown;
          try {
            payload = JSON.parse(body.toString('utf8'));
          } catch {
            throw new SvcError('SVC_GITHUB_DELIVERY_INVALID', 'The delivery body is not JSON.');
          }
          if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
            throw new SvcError('SVC_GITHUB_DELIVERY_INVALID', 'The delivery body is not a JSON object.');
          if (name === 'ping') return reply.status(200).send({ status: 'pong' as const });
          const status = enqueueDelivery(deps.ctx, { id, name, payload });
          if (status === 'queued') deps.wake();
          request.log.info({ delivery: id, event: name, status }, 'github delivery');
          return reply.status(status === 'queued' ? 202 : 200).send({ status });
        },
      );
    });
  };
}
