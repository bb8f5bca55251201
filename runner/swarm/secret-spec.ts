// `POST /secrets/create` bodies: the one place a secret value goes to the engine (base64, stored
// encrypted in the swarm's raft store). Service and job specs only ever reference the result. Pure.
import type { EngineSecretSpec } from './engine-spec.js';
import { SWARM_LABELS, swarmSecretName } from './swarm-names.js';

/** One secret of one generation of a project, ready to create. */
export function swarmSecretSpec(projectId: string, generation: number, name: string, value: string): EngineSecretSpec {
  return {
    Name: swarmSecretName(projectId, generation, name),
    Labels: { [SWARM_LABELS.project]: projectId, [SWARM_LABELS.generation]: String(generation), [SWARM_LABELS.secret]: name },
    Data: Buffer.from(value, 'utf8').toString('base64'),
  };
}
