// The webhook notifier: alerts POSTed as signed JSON through svc's one HTTP client.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { defaultHttpClient, type HttpClient } from '../../core/http/http-client.js';
import type { NotifyAlert } from './alert-delivery.js';

/** Header carrying `sha256=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>`. */
export const WEBHOOK_SIGNATURE_HEADER = 'x-svc-signature';
/** Header carrying the signing time in milliseconds (part of the signed text, against replays). */
export const WEBHOOK_TIMESTAMP_HEADER = 'x-svc-timestamp';

/** The signature value for a body sent at `timestamp`. */
export function webhookSignature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex')}`;
}

/** Receiver-side check of a webhook signature (constant time). */
export function verifyWebhookSignature(secret: string, timestamp: string, body: string, signature: string): boolean {
  const expected = Buffer.from(webhookSignature(secret, timestamp, body));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/**
 * A notifier that POSTs the alert as JSON, signed with HMAC-SHA256; any 2xx is delivered.
 * Redirects are refused (never followed: a 3xx fails the delivery); the abort signal bounds the request.
 */
export function webhookNotifier(options: { url: string; secret: string; now?: () => number; http?: HttpClient }): NotifyAlert {
  const target = new URL(options.url);
  if (options.secret.length < 16) throw new Error('the webhook secret needs at least 16 characters');
  return async (alert, signal) => {
    const body = JSON.stringify(alert);
    const timestamp = String((options.now ?? Date.now)());
    const answer = await (options.http ?? defaultHttpClient).open({
      method: 'POST',
      url: target,
      headers: {
        'content-type': 'application/json',
        [WEBHOOK_TIMESTAMP_HEADER]: timestamp,
        [WEBHOOK_SIGNATURE_HEADER]: webhookSignature(options.secret, timestamp, body),
        'x-svc-alert-id': alert.id,
      },
      body,
      signal,
      timeoutMs: null, // the delivery loop's signal carries the timeout
    });
    answer.discard();
    if (answer.status < 200 || answer.status > 299) throw new Error(`webhook answered ${answer.status}`);
  };
}
