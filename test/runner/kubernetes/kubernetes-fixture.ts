import { defaultContainerLimits } from '../../../runner/container/podman-args.js';
import type { KubernetesAppInput } from '../../../runner/kubernetes/deployment.js';
import type { KubernetesJobInput } from '../../../runner/kubernetes/job.js';
import type { ProjectManifestsInput } from '../../../runner/kubernetes/project-manifests.js';
import type { KubernetesReleaseInput } from '../../../runner/kubernetes/release-input.js';

export const IMAGE = `registry.example.com/svc-node@sha256:${'a'.repeat(64)}`;
export const DIGEST = 'b'.repeat(64);

export const releaseInput: KubernetesReleaseInput = {
  projectId: 'prj_1',
  releaseId: 'rel_1',
  generation: 7,
  releaseDigest: DIGEST,
  image: IMAGE,
  artifactUrl: 'http://svc-control-plane.svc-system.svc:7070/artifacts/rel_1',
  databaseFile: 'db/app.db',
  limits: defaultContainerLimits,
  releaseSize: '256m',
  stopGraceMs: 10_000,
};

export const appInput: KubernetesAppInput = {
  ...releaseInput,
  role: 'app',
  entry: 'dist/server.mjs',
  env: { GREETING: 'hi' },
  secretNames: ['API_KEY'],
  port: 3000,
  health: { path: '/healthz', timeoutMs: 30_000 },
};

export const jobInput: KubernetesJobInput = {
  ...releaseInput,
  jobId: 'j1',
  type: 'migrate',
};

export const network: ProjectManifestsInput['network'] = {
  ingress: { namespace: 'svc-system', podLabels: { 'app.kubernetes.io/name': 'svc-ingress' } },
  artifactEndpoint: { namespace: 'svc-system', podLabels: { 'app.kubernetes.io/name': 'svc-control-plane' }, port: 7070 },
};

const { role: _role, secretNames: _names, ...serving } = appInput;

export const manifestsInput: ProjectManifestsInput = {
  release: {
    ...serving,
    secretValues: { API_KEY: 'not-a-real-key' },
    credential: { token: 'svc-rc1.payload.signature', expiresAt: new Date(1_700_000_000_000) },
  },
  canary: {
    ...serving,
    releaseId: 'rel_2',
    generation: 8,
    releaseDigest: 'c'.repeat(64),
    secretValues: { API_KEY: 'not-a-real-key' },
    credential: { token: 'svc-rc1.payload2.signature2', expiresAt: new Date(1_700_000_000_000) },
  },
  data: { dataSize: '10g' },
  network,
};
