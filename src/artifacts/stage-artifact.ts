// Decode and verify an artifact straight onto disk: the control plane's memory holds a few chunks of
// it at a time however large its files are (or claim to be), and a rejected artifact leaves nothing.
import { mkdir, rm } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { SvcError } from '../core/errors.js';
import type { ArtifactDocument, ArtifactFileEntry } from './document.js';
import type { DeployConfig } from './deploy-config.js';
import { decodeInto, type DecodeOptions } from './decode-artifact.js';
import { DiskSink } from './disk-sink.js';
import { ioFailure } from '../core/disk-full.js';

/** A fully verified artifact whose files are written (and fsynced) under `dir`. */
export interface StagedArtifact {
  /** The staging directory holding the files; move it into place with placeStagedArtifact. */
  dir: string;
  /** Lowercase hex SHA-256 of the gzip bytes. */
  digest: string;
  gzipBytes: number;
  document: ArtifactDocument;
  config: DeployConfig;
  files: ArtifactFileEntry[];
  /** Sum of the file sizes. */
  totalBytes: number;
}

/**
 * Decode `source` into the new directory `dir` (it must not exist) with every check of decodeArtifact.
 * On any failure the directory is removed and the error thrown (a full disk is SVC_DISK_FULL).
 */
export async function stageArtifact(source: Buffer | AsyncIterable<Uint8Array>, dir: string, options: DecodeOptions = {}): Promise<StagedArtifact> {
  const root = resolve(dir);
  try {
    await mkdir(dirname(root), { recursive: true });
    await mkdir(root, { mode: 0o755 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new SvcError('SVC_ARTIFACT_TARGET_EXISTS', `${root} already exists`);
    throw ioFailure(error, `creating ${root}`);
  }
  const sink = new DiskSink(root);
  try {
    const { digest, gzipBytes, parsed } = await decodeInto(source, sink, options);
    await sink.finish();
    return { dir: root, digest, gzipBytes, document: parsed.document, config: parsed.config, files: parsed.files, totalBytes: parsed.totalBytes };
  } catch (error) {
    await sink.abort();
    await rm(root, { recursive: true, force: true });
    throw error;
  }
}

/** Remove a staged artifact that will not be placed (never throws; a leftover is only wasted space). */
export async function discardStagedArtifact(staged: Pick<StagedArtifact, 'dir'>): Promise<void> {
  await rm(staged.dir, { recursive: true, force: true }).catch(() => undefined);
}
