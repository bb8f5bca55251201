// Swarm secrets of one deploy generation of a project: its per-release credential, each app secret and
// each platform SVC_* value, created before the service spec that references them. Swarm secrets are
// immutable, so a new generation gets new ones and older generations' are removed once it serves.
import type { EngineClient } from './engine-client.js';
import { swarmSecretSpec } from './secret-spec.js';
import { SWARM_CREDENTIAL_FILE, type SwarmSecretRef } from './swarm-task-template.js';
import { SWARM_LABELS } from './swarm-names.js';

export interface GenerationSecrets {
  credential: SwarmSecretRef;
  /** One per app secret and platform value, named by its variable. */
  values: SwarmSecretRef[];
}

/** Create one secret of a project (labelled with its generation, or its job). */
export async function createProjectSecret(
  engine: EngineClient,
  projectId: string,
  generation: number,
  name: string,
  value: string,
  extraLabels: Record<string, string> = {},
): Promise<SwarmSecretRef> {
  const spec = swarmSecretSpec(projectId, generation, name, value);
  const secretId = await engine.createSecret({ name: spec.Name, labels: { ...spec.Labels, ...extraLabels }, data: Buffer.from(value, 'utf8') });
  return { name, secretId, secretName: spec.Name };
}

/** The credential and every value of a generation as swarm secrets. */
export async function createGenerationSecrets(
  engine: EngineClient,
  projectId: string,
  generation: number,
  values: Readonly<Record<string, string>>,
  credentialToken: string,
): Promise<GenerationSecrets> {
  const credential = await createProjectSecret(engine, projectId, generation, SWARM_CREDENTIAL_FILE, credentialToken);
  const refs: SwarmSecretRef[] = [];
  for (const [name, value] of Object.entries(values)) refs.push(await createProjectSecret(engine, projectId, generation, name, value));
  return { credential, values: refs };
}

/**
 * Remove the project's generation secrets except those of `keep` (job secrets are their jobs' own).
 * A secret a service still references is refused by the engine; it is left for the next cleanup.
 */
export async function removeGenerationSecrets(
  engine: EngineClient,
  projectId: string,
  keep: ReadonlySet<number>,
  warn: (message: string) => void,
): Promise<void> {
  const secrets = await engine.listSecrets({ [SWARM_LABELS.project]: projectId });
  for (const secret of secrets) {
    if (secret.labels[SWARM_LABELS.job] !== undefined) continue;
    const generation = Number(secret.labels[SWARM_LABELS.generation]);
    if (keep.has(generation)) continue;
    await engine.removeSecret(secret.id).catch((error: unknown) => warn(`secret ${secret.name} of generation ${generation} kept: ${(error as Error).message}`));
  }
}

/** The highest generation any secret of the project carries (0 when none). */
export async function newestSecretGeneration(engine: EngineClient, projectId: string): Promise<number> {
  const secrets = await engine.listSecrets({ [SWARM_LABELS.project]: projectId });
  return Math.max(0, ...secrets.map((s) => Number(s.labels[SWARM_LABELS.generation])).filter((n) => Number.isSafeInteger(n)));
}
