import { pino, type DestinationStream, type Logger } from 'pino';
import { PLATFORM_CSRF_HEADER } from './platform-credentials-names.js';

export type { Logger } from 'pino';

/** Paths pino blanks out: credentials must never reach a log line. */
export const redactedPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  `req.headers["${PLATFORM_CSRF_HEADER}"]`,
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  '*.password',
  '*.accessToken',
  '*.token',
  '*.deviceCode',
  '*.invitation',
  '*.invitationToken',
  '*.csrfToken',
];

const secretQuery = /([?&](?:invitation|token|code|deviceCode|userCode)=)[^&#]*/gi;

/** A request URL safe to log: values of credential-like query parameters are blanked. Pure. */
export function redactUrl(url: string): string {
  return url.replace(secretQuery, '$1[redacted]');
}

/** Structured JSON logger for the control plane (pino), with credentials redacted. */
export function createLogger(options: { level: string; destination?: DestinationStream }): Logger {
  return pino(
    {
      level: options.level,
      redact: { paths: redactedPaths, censor: '[redacted]' },
      base: { service: 'svc-platform' },
      serializers: {
        req: (req: { method?: string; url?: string; ip?: string }) => ({ method: req.method, url: redactUrl(req.url ?? ''), remoteAddress: req.ip }),
      },
    },
    options.destination,
  );
}
