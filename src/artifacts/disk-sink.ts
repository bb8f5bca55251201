// Writes verified file contents under a staging directory as they are decoded, so an upload's files
// never sit in memory whole. The parser calls are synchronous; the writes they ask for are queued and
// done by flush(), which the decoder awaits after each decompressed chunk — that is the backpressure
// that keeps at most one chunk of decoded bytes waiting here.
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import { fsyncDirectory } from '../core/atomic-write.js';
import { SvcError } from '../core/errors.js';
import type { ContentSink } from './content-sink.js';
import type { ArtifactFileEntry } from './document.js';
import { pathShapeViolation } from './path-rules.js';
import { ioFailure } from '../core/disk-full.js';

type Step = { kind: 'begin'; entry: ArtifactFileEntry } | { kind: 'write'; bytes: Buffer } | { kind: 'end'; entry: ArtifactFileEntry };

/** A content sink that writes each file below `root` (which must exist and be empty). */
export class DiskSink implements ContentSink {
  private queue: Step[] = [];
  private file: FileHandle | undefined;
  private readonly directories = new Set<string>();

  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  begin(entry: ArtifactFileEntry): void {
    this.queue.push({ kind: 'begin', entry });
  }

  write(bytes: Buffer): void {
    this.queue.push({ kind: 'write', bytes });
  }

  end(entry: ArtifactFileEntry): void {
    this.queue.push({ kind: 'end', entry });
  }

  /** Do the queued writes. I/O failures become SVC_DISK_FULL (ENOSPC, EDQUOT) or SVC_IO. */
  async flush(): Promise<void> {
    const steps = this.queue;
    this.queue = [];
    try {
      for (const step of steps) {
        if (step.kind === 'begin') this.file = await this.create(step.entry);
        else if (step.kind === 'write') await this.file!.write(step.bytes);
        else await this.close(step.entry);
      }
    } catch (error) {
      throw diskError(error, this.root);
    }
  }

  /** After the last flush: fsync every directory, deepest first, so the tree survives a crash. */
  async finish(): Promise<void> {
    try {
      const deepestFirst = [...this.directories].sort((a, b) => b.split(sep).length - a.split(sep).length);
      for (const dir of deepestFirst) await fsyncDirectory(dir);
      await fsyncDirectory(this.root);
    } catch (error) {
      throw diskError(error, this.root);
    }
  }

  /** Close a file left open by a failed decode (the caller removes the staging directory). */
  async abort(): Promise<void> {
    this.queue = [];
    await this.file?.close().catch(() => undefined);
    this.file = undefined;
  }

  private async create(entry: ArtifactFileEntry): Promise<FileHandle> {
    const path = this.inside(entry.path);
    for (let slash = entry.path.indexOf('/'); slash >= 0; slash = entry.path.indexOf('/', slash + 1)) {
      const dir = this.inside(entry.path.slice(0, slash));
      if (this.directories.has(dir)) continue;
      await mkdir(dir, { mode: 0o755 });
      this.directories.add(dir);
    }
    return open(path, 'wx', entry.mode & 0o777);
  }

  private async close(entry: ArtifactFileEntry): Promise<void> {
    const file = this.file!;
    this.file = undefined;
    try {
      await file.chmod(entry.mode & 0o777); // exact mode regardless of umask
      await file.sync();
    } finally {
      await file.close();
    }
  }

  /** Join and prove the result stays below the root (belt and braces after the parser's path rules). */
  private inside(relative: string): string {
    const shape = pathShapeViolation(relative);
    if (shape) throw new SvcError(shape.code, `${JSON.stringify(relative)} ${shape.rule}`);
    const full = resolve(this.root, relative);
    if (!full.startsWith(this.root + sep)) throw new SvcError('SVC_ARTIFACT_PATH_TRAVERSAL', `${relative} resolves outside the release directory`);
    return full;
  }
}

function diskError(error: unknown, root: string): SvcError {
  return ioFailure(error, `writing the artifact into ${root}`);
}
