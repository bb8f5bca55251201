import { defaultContainerLimits } from '../../../runner/container/podman-args.js';
import type { ReleaseServiceInput } from '../../../runner/swarm/service-spec.js';
import type { SwarmTaskInput } from '../../../runner/swarm/swarm-task-template.js';

export const IMAGE = `localhost/svc-swarm-node@sha256:${'a'.repeat(64)}`;
export const DIGEST = 'b'.repeat(64);
export const NODE = 'x7k2mq9p4r8s1t6v3w5y0z2ab';

export const taskInput: SwarmTaskInput = {
  projectId: 'prj_1',
  releaseId: 'rel_1',
  generation: 7,
  releaseDigest: DIGEST,
  image: IMAGE,
  artifactUrl: 'https://svc.example.com/v1/nodes/artifacts/rel_1',
  credential: { name: 'credential', secretId: 'sec-cred-id', secretName: 'svc-s-cred' },
  nodeId: NODE,
  databaseFile: 'db/app.db',
  limits: defaultContainerLimits,
  releaseTmpfsSize: '256m',
  stopGraceMs: 10_000,
};

export const serviceInput: ReleaseServiceInput = {
  ...taskInput,
  role: 'app',
  entry: 'dist/server.mjs',
  env: { GREETING: 'hi' },
  secrets: [{ name: 'API_KEY', secretId: 'sec-api-id', secretName: 'svc-s-api' }],
  port: 3000,
  health: { path: '/healthz', timeoutMs: 30_000 },
};
