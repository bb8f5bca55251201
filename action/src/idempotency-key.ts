import { createHash } from 'node:crypto';

/**
 * The upload's Idempotency-Key: SHA-256 of `<repositoryId>:<sha>:<digest>`, so a re-run or retried
 * workflow for the same commit and artifact returns the release it created, never a second one. Pure.
 */
export function idempotencyKeyFor(repositoryId: string, sha: string, digest: string): string {
  return createHash('sha256').update(`${repositoryId}:${sha}:${digest}`).digest('hex');
}
