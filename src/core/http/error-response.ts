import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { isDiskFull } from '../disk-full.js';
import { SvcError } from '../errors.js';

/** What the HTTP layer sends for a thrown value, and whether it must be logged as a server fault. */
export interface ErrorResponse {
  status: number;
  body: { error: { code: string; message: string; details?: Record<string, unknown> } };
  internal: boolean;
}

const fastifyCodes: Record<string, ConstructorParameters<typeof SvcError>[0]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'SVC_PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_JSON_BODY: 'SVC_MALFORMED_JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'SVC_MALFORMED_JSON',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'SVC_UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'SVC_BAD_REQUEST',
  FST_ERR_BAD_URL: 'SVC_BAD_REQUEST',
};

/** Pure mapping of any thrown value to the `{ error: { code, message } }` wire shape; unknown faults are redacted. */
export function toErrorResponse(error: unknown): ErrorResponse {
  if (error instanceof SvcError) {
    const internal = error.status >= 500 && error.code === 'SVC_INTERNAL';
    return { status: error.status, body: internal ? redacted() : error.toBody(), internal };
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const first = error.validation[0];
    const where = (error as { validationContext?: string }).validationContext ?? 'body';
    const path = first?.instancePath ? `${where}${first.instancePath.replace(/\//g, '.')}` : where;
    const svc = new SvcError('SVC_VALIDATION', `${path}: ${first?.message ?? 'invalid'}`);
    return { status: svc.status, body: svc.toBody(), internal: false };
  }
  if (isResponseSerializationError(error)) return { status: 500, body: redacted(), internal: true };
  // A write that found no space (SQLite or the filesystem) anywhere in a route: tell the caller what
  // to do (free space, retry) instead of a redacted internal error; still logged as a server fault.
  if (isDiskFull(error)) {
    const svc = new SvcError('SVC_DISK_FULL');
    return { status: svc.status, body: svc.toBody(), internal: true };
  }
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && code in fastifyCodes) {
    const svc = new SvcError(fastifyCodes[code]!);
    return { status: svc.status, body: svc.toBody(), internal: false };
  }
  const status = (error as { statusCode?: unknown }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const svc = new SvcError(
      status === 404 ? 'SVC_NOT_FOUND' : status === 405 ? 'SVC_METHOD_NOT_ALLOWED' : status === 429 ? 'SVC_RATE_LIMITED' : 'SVC_BAD_REQUEST',
    );
    return { status, body: svc.toBody(), internal: false };
  }
  return { status: 500, body: redacted(), internal: true };
}

function redacted(): ErrorResponse['body'] {
  return { error: { code: 'SVC_INTERNAL', message: 'Internal error; the server log has the details.' } };
}
