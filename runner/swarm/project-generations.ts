// Deploy generations of a project: every start of a release (deploy, canary, restart, promotion) is
// a new generation with its own secrets and credential. Numbers continue from what the engine holds
// (service labels, secrets), so a restarted control plane never reuses one; once a generation
// serves, the secrets and credentials of those no service spec carries any more are retired.
import { newestSecretGeneration, removeGenerationSecrets } from './generation-secrets.js';
import { specGeneration } from './service-control.js';
import { swarmServiceName } from './swarm-names.js';
import type { SwarmRuntime } from './swarm-runtime.js';

export class ProjectGenerations {
  private readonly last = new Map<string, number>();

  /** A generation number no service or secret of the project carries yet. */
  async next(rt: SwarmRuntime, projectId: string): Promise<number> {
    let last = this.last.get(projectId);
    if (last === undefined) {
      last = await newestSecretGeneration(rt.engine, projectId);
      for (const role of ['app', 'canary'] as const) {
        const service = await rt.engine.inspectService(swarmServiceName(projectId, role));
        last = Math.max(last, specGeneration(service?.spec) ?? 0, specGeneration(service?.previousSpec) ?? 0);
      }
    }
    this.last.set(projectId, last + 1);
    return last + 1;
  }

  forget(projectId: string): void {
    this.last.delete(projectId);
  }

  /** Keep the secrets and credentials of the generations the project's service and canary carry; drop the rest. */
  async retire(rt: SwarmRuntime, projectId: string, warn: (line: string) => void): Promise<void> {
    const keep = new Set<number>();
    for (const role of ['app', 'canary'] as const) {
      const generation = specGeneration((await rt.engine.inspectService(swarmServiceName(projectId, role)))?.spec);
      if (generation !== null) keep.add(generation);
    }
    rt.access.keepOnly(projectId, keep);
    await removeGenerationSecrets(rt.engine, projectId, keep, warn);
  }
}
