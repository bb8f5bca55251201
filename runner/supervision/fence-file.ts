// The fence file of one supervised runtime: written by its supervisor before the app
// starts (temp + fsync + rename + fsync dir) and removed only after cleanup of the runtime was verified.
// Layout: `<fencesDir>/<projectId>/<runId>.fence.json`, so a project's unresolved fences are one listing.
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { atomicWriteFileSync, fsyncDirectory } from '../../src/core/atomic-write.js';

const safeName = z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/);

/** What runs under a supervisor: a process group, a podman container, or a bubblewrap sandbox. */
export const fenceRuntimeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('process'), pgid: z.number().int().positive(), startTime: z.string().nullable() }),
  z.object({ kind: z.literal('container'), name: safeName, podman: z.string().min(1), ociRuntime: z.string().min(1) }),
  /**
   * The launcher (leader of its own group; bubblewrap dies with it) and the sandbox's init (the kernel
   * ends everything in its PID namespace with it), each with its /proc start time against pid reuse.
   */
  z.object({
    kind: z.literal('sandbox'),
    launcherPgid: z.number().int().positive(),
    launcherStartTime: z.string().nullable(),
    initPid: z.number().int().positive(),
    initStartTime: z.string().nullable(),
  }),
]);
export type FenceRuntime = z.infer<typeof fenceRuntimeSchema>;

/** The controller lease the runtime lives under: renewed by the controller, expires when it stops renewing. */
export const leaseSchema = z.object({ holder: z.string().min(1).max(200), expiresAt: z.number() });

export const fenceFileSchema = z.object({
  version: z.literal(1),
  projectId: safeName,
  runId: safeName,
  releaseId: z.string().min(1).max(200),
  supervisor: z.object({ pid: z.number().int().positive(), startTime: z.string().nullable() }),
  /** Null only while a process or sandbox app is being spawned (containers are named before they start). */
  runtime: fenceRuntimeSchema.nullable(),
  lease: leaseSchema,
  updatedAt: z.number(),
});
export type FenceFile = z.infer<typeof fenceFileSchema>;

/** A fence as found on disk: parsed, or unreadable (never silently ignored). */
export type StoredFence = { path: string; fence: FenceFile } | { path: string; fence: null; error: string };

/** Path of a runtime's fence file. */
export function fencePath(fencesDir: string, projectId: string, runId: string): string {
  return join(fencesDir, safeName.parse(projectId), `${safeName.parse(runId)}.fence.json`);
}

/** Read one fence file; null when it does not exist (or cannot be parsed). */
export function readFence(path: string): FenceFile | null {
  try {
    return fenceFileSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
  } catch {
    return null;
  }
}

/** Durably write a fence file (creates the project directory). */
export function writeFence(path: string, fence: FenceFile): void {
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  atomicWriteFileSync(path, JSON.stringify(fenceFileSchema.parse(fence)), { mode: 0o600 });
}

/** Remove a file and fsync its directory, so the removal survives a crash too. */
export async function removeFileDurably(path: string): Promise<void> {
  rmSync(path, { force: true });
  await fsyncDirectory(join(path, '..')).catch(() => undefined);
}

/** Every fence of one project (or of all projects when projectId is omitted). */
export function listFences(fencesDir: string, projectId?: string): StoredFence[] {
  const projects = projectId ? [safeName.parse(projectId)] : readNames(fencesDir);
  const out: StoredFence[] = [];
  for (const project of projects) {
    for (const name of readNames(join(fencesDir, project))) {
      if (!name.endsWith('.fence.json')) continue;
      const path = join(fencesDir, project, name);
      try {
        out.push({ path, fence: fenceFileSchema.parse(JSON.parse(readFileSync(path, 'utf8'))) });
      } catch (error) {
        // A vanished file was resolved meanwhile; anything else stays as an unreadable fence.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        out.push({ path, fence: null, error: (error as Error).message });
      }
    }
  }
  return out;
}

function readNames(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
