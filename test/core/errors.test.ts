import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorCodes } from '../../src/core/error-codes/index.js';
import { renderErrorDocs } from '../../src/core/error-docs.js';
import { exitCodeFor, isSvcError, SvcError } from '../../src/core/errors.js';

describe('error registry', () => {
  it('has only SVC_-prefixed codes with valid HTTP statuses and summaries', () => {
    for (const [code, def] of Object.entries(errorCodes)) {
      expect(code).toMatch(/^SVC_[A-Z0-9_]+$/);
      expect(def.status).toBeGreaterThanOrEqual(400);
      expect(def.status).toBeLessThan(600);
      expect(def.summary.length).toBeGreaterThan(5);
    }
  });

  it('derives status, kind and body from the code', () => {
    const error = new SvcError('SVC_RATE_LIMITED', 'slow down');
    expect(error.status).toBe(429);
    expect(error.kind).toBe('retryable');
    expect(error.toBody()).toEqual({ error: { code: 'SVC_RATE_LIMITED', message: 'slow down' } });
    expect(isSvcError(error, 'SVC_RATE_LIMITED')).toBe(true);
    expect(isSvcError(error, 'SVC_NOT_FOUND')).toBe(false);
  });

  it('maps kinds and statuses to CLI exit codes', () => {
    expect(exitCodeFor(new SvcError('SVC_UNAVAILABLE'))).toBe(75);
    expect(exitCodeFor(new SvcError('SVC_VALIDATION'))).toBe(65);
    expect(exitCodeFor(new SvcError('SVC_NOT_FOUND'))).toBe(66);
    expect(exitCodeFor(new SvcError('SVC_CONFLICT'))).toBe(73);
    expect(exitCodeFor(new SvcError('SVC_INTERNAL'))).toBe(70);
    expect(exitCodeFor(new SvcError('SVC_USAGE'))).toBe(2);
    expect(exitCodeFor(new Error('plain'))).toBe(70);
  });

  it('docs/errors.md lists every code (regenerate with npm run docs:errors)', () => {
    const onDisk = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'errors.md'), 'utf8');
    expect(onDisk).toBe(renderErrorDocs());
  });
});
