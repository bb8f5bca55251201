import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger } from 'pino';

/** Paths pino blanks out: credentials must never reach a log line. */
export const redactedPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-svc-csrf"]',
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

/** Structured JSON logger for the control plane (pino), with credentials redacted. */
export function createLogger(options: { level: string; destination?: DestinationStream }): Logger {
  return pino({ level: options.level, redact: { paths: redactedPaths, censor: '[redacted]' }, base: { service: 'svc-platform' } }, options.destination);
}
