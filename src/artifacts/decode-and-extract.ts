// Decode straight into a temporary sibling of the target and rename it into place once everything
// is verified: memory stays bounded by a few chunks whatever the artifact holds.
import { randomBytes } from 'node:crypto';
import { lstat, mkdir } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { SvcError } from '../core/errors.js';
import type { DecodeOptions } from './decode-artifact.js';
import { placeStagedArtifact } from './place-staged-artifact.js';
import { discardStagedArtifact, stageArtifact, type StagedArtifact } from './stage-artifact.js';

/** Verify an artifact completely and put its files at `targetDir` (which must not exist); nothing appears there unless verification passed. */
export async function decodeAndExtractArtifact(
  source: Buffer | AsyncIterable<Uint8Array>,
  targetDir: string,
  options: DecodeOptions = {},
): Promise<Omit<StagedArtifact, 'dir'>> {
  const target = resolve(targetDir);
  if (
    await lstat(target).then(
      () => true,
      () => false,
    )
  )
    throw new SvcError('SVC_ARTIFACT_TARGET_EXISTS', `${target} already exists`);
  await mkdir(dirname(target), { recursive: true });
  const staged = await stageArtifact(source, join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.extract`), options);
  try {
    await placeStagedArtifact(staged, target);
  } catch (error) {
    await discardStagedArtifact(staged);
    throw error;
  }
  const { dir: _dir, ...verified } = staged;
  return verified;
}
