// Project deletion on the swarm: everything svc created for a project goes — its service, canary and job
// services, every secret, its overlay network and, last, its volume (the project's data: the pipeline
// stopped the app first). Objects another step still holds are retried briefly, then reported.
import { projectNetworkName } from '../container/network-args.js';
import { SvcError } from '../../src/core/errors.js';
import type { EngineClient } from './engine-client.js';
import { removeService } from './service-control.js';
import { SWARM_LABELS, swarmServiceName, swarmVolumeName } from './swarm-names.js';

const RETRY_MS = 250;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Run `remove` until it succeeds (an object in use frees up once the engine removed its tasks' containers). */
async function removeWhenFree(what: string, timeoutMs: number, remove: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await remove();
      return;
    } catch (error) {
      if (Date.now() >= deadline) throw new SvcError('SVC_SWARM_REQUEST_FAILED', `Could not remove ${what}: ${(error as Error).message}`, { cause: error });
      await sleep(RETRY_MS);
    }
  }
}

/** Remove every swarm object of a project (idempotent: what is gone already is skipped). */
export async function removeSwarmProject(engine: EngineClient, projectId: string, timeoutMs: number): Promise<void> {
  const project = { [SWARM_LABELS.project]: projectId };
  await removeService(engine, swarmServiceName(projectId, 'canary'), timeoutMs);
  await removeService(engine, swarmServiceName(projectId, 'app'), timeoutMs);
  for (const job of await engine.listServices({ ...project, [SWARM_LABELS.role]: 'job' })) await removeService(engine, job.spec.Name, timeoutMs);
  for (const secret of await engine.listSecrets(project)) await removeWhenFree(`secret ${secret.name}`, timeoutMs, () => engine.removeSecret(secret.id));
  await removeWhenFree(`network ${projectNetworkName(projectId)}`, timeoutMs, () => engine.removeNetwork(projectNetworkName(projectId)));
  // The volume lives on the node that ran the tasks; this engine removes it when that node is this one.
  await removeWhenFree(`volume ${swarmVolumeName(projectId)}`, timeoutMs, () => engine.removeVolume(swarmVolumeName(projectId), { force: false }));
}
