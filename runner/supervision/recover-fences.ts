// Controller start-up and per-project gate: fences left by a previous controller are
// resolved only after its lease expired and the runtime was verified gone; until then writers are refused.
import { systemClock, type Clock } from '../../src/core/clock.js';
import { SvcError } from '../../src/core/errors.js';
import type { Spawner } from '../../src/core/exec.js';
import { decideFenceRecovery, planLeaseWait } from './fence-decisions.js';
import { listFences, removeFileDurably, type StoredFence } from './fence-file.js';
import { killAndVerify, runtimeAlive, supervisorAlive } from './runtime-probe.js';

export interface FenceRecoveryOptions {
  fencesDir: string;
  /** This controller's lease holder id: its own fences are never touched. */
  holder: string;
  clock?: Clock;
  sleep?: (ms: number) => Promise<void>;
  spawner?: Spawner;
  /** How long to keep killing a leftover runtime before calling it unresolved (default 15 s). */
  killTimeoutMs?: number;
}

/** What happened to one fence. */
export type FenceOutcome = 'own' | 'cleared' | 'unresolved';

/** Resolves fences of earlier controllers. */
export class FenceRecovery {
  private readonly clock: Clock;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: FenceRecoveryOptions) {
    this.clock = options.clock ?? systemClock;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** Start-up: wait (at most `maxWaitMs`) for every foreign lease to expire, then resolve all fences. Returns unresolved project ids. */
  async recoverAll(maxWaitMs: number): Promise<string[]> {
    const fences = listFences(this.options.fencesDir);
    const wait = planLeaseWait(
      fences.map((f) => f.fence),
      this.clock.now(),
      this.options.holder,
      maxWaitMs,
    );
    if (wait > 0) await this.sleep(wait);
    const unresolved = new Set<string>();
    for (const stored of listFences(this.options.fencesDir)) {
      if ((await this.resolve(stored)) === 'unresolved') unresolved.add(projectOf(stored));
    }
    return [...unresolved];
  }

  /** Gate for a writer of one project: resolve what can be resolved now (no waiting), else SVC_PROVIDER_FENCE_UNRESOLVED. */
  async assertResolved(projectId: string): Promise<void> {
    for (const stored of listFences(this.options.fencesDir, projectId)) {
      if ((await this.resolve(stored)) === 'unresolved') {
        const until = stored.fence
          ? ` (lease of ${stored.fence.lease.holder} until ${new Date(stored.fence.lease.expiresAt).toISOString()})`
          : ' (unreadable fence file)';
        throw new SvcError(
          'SVC_PROVIDER_FENCE_UNRESOLVED',
          `Project ${projectId} has an unresolved runtime fence${until}; no new writer starts until its cleanup is verified`,
          {
            details: { projectId, path: stored.path },
          },
        );
      }
    }
  }

  /** Decide, act, verify, and remove the fence only when cleanup is verified. */
  private async resolve(stored: StoredFence): Promise<FenceOutcome> {
    const fence = stored.fence;
    const observe = async (): Promise<{ supervisorAlive: boolean; runtimeAlive: boolean | 'unknown' }> => ({
      supervisorAlive: fence ? supervisorAlive(fence.supervisor.pid, fence.supervisor.startTime) : false,
      runtimeAlive: fence ? await runtimeAlive(fence.runtime, this.options.spawner) : 'unknown',
    });
    let action = decideFenceRecovery(fence, await observe(), this.clock.now(), this.options.holder);
    if (action.action === 'own') return 'own';
    if (action.action === 'terminate' && fence) {
      // The lease expired, so the old supervisor should have stopped already: end it and its runtime ourselves.
      if (action.supervisor) {
        try {
          process.kill(fence.supervisor.pid, 'SIGKILL');
        } catch {
          // Gone meanwhile.
        }
      }
      const deadline = this.clock.now() + (this.options.killTimeoutMs ?? 15_000);
      await killAndVerify(fence.runtime, {
        timeoutMs: this.options.killTimeoutMs ?? 15_000,
        ...(this.options.spawner ? { spawner: this.options.spawner } : {}),
      });
      while (supervisorAlive(fence.supervisor.pid, fence.supervisor.startTime) && this.clock.now() < deadline) await this.sleep(50);
      action = decideFenceRecovery(fence, await observe(), this.clock.now(), this.options.holder);
    }
    if (action.action !== 'clear') return 'unresolved';
    await removeFileDurably(stored.path);
    return 'cleared';
  }
}

function projectOf(stored: StoredFence): string {
  if (stored.fence) return stored.fence.projectId;
  const parts = stored.path.split('/');
  return parts[parts.length - 2] ?? 'unknown';
}
