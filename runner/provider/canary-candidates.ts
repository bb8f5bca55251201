// Canary candidates of the local provider: per project at most one release started beside the running
// baseline while the pointer stays on the baseline. The app is held here; `<project>/canary.json`
// records it durably (temp + fsync + rename) so a restarted provider knows a canary was staged: its app
// ended with the provider's supervisors, so resume discards the record (the baseline is never touched)
// and running() stops reporting the canary, which the control plane reads as the candidate lost.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { atomicWriteFileSync } from '../../src/core/atomic-write.js';
import type { RunningApp } from '../app-runner.js';
import { removeFileDurably } from '../supervision/fence-file.js';
import type { StagedCanaryFacts } from './node-canary.js';
import { idSchema, type CanaryRunState } from './provider-contract.js';

const canaryRecordSchema = z.strictObject({
  generation: z.number().int().min(0),
  releaseId: idSchema,
  host: z.string().min(1),
  port: z.number().int().min(1).max(65535),
  at: z.number(),
});
/** The durable record of a staged candidate. */
export type CanaryRecord = z.infer<typeof canaryRecordSchema>;

export interface CanaryCandidatesOptions {
  projectDir: (projectId: string) => string;
  /** Stop grace of an aborted candidate. */
  stopGraceMs: number;
}

/** The staged canary candidates of every project. */
export class CanaryCandidates {
  readonly #apps = new Map<string, RunningApp>();

  constructor(private readonly options: CanaryCandidatesOptions) {}

  #path(projectId: string): string {
    return join(this.options.projectDir(projectId), 'canary.json');
  }

  /** Whether a record exists (readable or not). */
  has(projectId: string): boolean {
    return existsSync(this.#path(projectId));
  }

  /** The durable record, or null when none is staged (an unreadable record is an error, never ignored). */
  record(projectId: string): CanaryRecord | null {
    let text: string;
    try {
      text = readFileSync(this.#path(projectId), 'utf8');
    } catch {
      return null;
    }
    return canaryRecordSchema.parse(JSON.parse(text));
  }

  /** The staged candidate as the pure decisions see it: its release and whether its app is up. */
  staged(projectId: string): StagedCanaryFacts | null {
    const record = this.record(projectId);
    if (!record) return null;
    const app = this.#apps.get(projectId);
    return { releaseId: record.releaseId, up: app !== undefined && !app.exited && app.releaseId === record.releaseId };
  }

  /** What running() reports beside the baseline, or undefined when no canary is staged. */
  runState(projectId: string): CanaryRunState | undefined {
    const record = this.record(projectId);
    if (!record) return undefined;
    const up = this.staged(projectId)?.up === true;
    return { generation: record.generation, releaseId: record.releaseId, upstream: up ? { host: record.host, port: record.port } : null };
  }

  /** Record a healthy candidate (the app first, so running() never names an address nothing holds). */
  stage(projectId: string, generation: number, app: RunningApp, now: number): void {
    this.#apps.set(projectId, app);
    atomicWriteFileSync(
      this.#path(projectId),
      JSON.stringify({ generation, releaseId: app.releaseId, host: app.host, port: app.port, at: now } satisfies CanaryRecord),
    );
  }

  /** A retry or a later canary request for the same release: the record names the newer generation. */
  restamp(projectId: string, generation: number): void {
    const record = this.record(projectId);
    if (record && record.generation < generation) atomicWriteFileSync(this.#path(projectId), JSON.stringify({ ...record, generation }));
  }

  /** Promotion: hand the candidate's app to the pointer (the record is forgotten once the pointer moved). */
  take(projectId: string): RunningApp | undefined {
    const app = this.#apps.get(projectId);
    this.#apps.delete(projectId);
    return app;
  }

  /** Forget the record (after a promotion, or on resume when the app ended with the previous provider process). */
  async forget(projectId: string): Promise<void> {
    await removeFileDurably(this.#path(projectId));
  }

  /** Abort: stop the candidate (the baseline is another app and never touched), then forget it. */
  async abort(projectId: string): Promise<void> {
    const app = this.take(projectId);
    if (app && !app.exited) await app.stop({ graceMs: this.options.stopGraceMs });
    await this.forget(projectId);
  }

  /** Releases whose candidates are staged (their directories must stay). */
  releaseIds(projectId: string): string[] {
    const record = this.record(projectId);
    return record ? [record.releaseId] : [];
  }

  /** Stop every candidate (shutdown); the records stay for the next start to discard. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.#apps.values()].map((app) => app.stop({ graceMs: 2000 })));
    this.#apps.clear();
  }
}
