import { defineCodes } from './define.js';

/** Audit feed. */
export const auditCodes = defineCodes({
  SVC_AUDIT_CURSOR_INVALID: {
    status: 400,
    retryable: false,
    summary: 'The `before` cursor is not an event visible to you.',
    hint: 'Use the nextCursor of the previous page as --before, or omit it to start from the newest event.',
  },
});
