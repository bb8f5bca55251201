// The generated parts of docs/kubernetes.md: each `<!-- generated:NAME -->` … `<!-- /generated -->`
// block is the runner/kubernetes generator's output for one example project, so the manifests in the
// docs are exactly what the code makes. Pure: the current text in, the regenerated text out.
import { createHash } from 'node:crypto';
import { stringify } from 'yaml';
import { defaultContainerLimits } from '../runner/container/podman-args.js';
import { CLUSTER_REQUIREMENTS } from '../runner/kubernetes/cluster-requirements.js';
import { releaseDeployment, type KubernetesAppInput } from '../runner/kubernetes/deployment.js';
import { releaseJob } from '../runner/kubernetes/job.js';
import { projectNamespace } from '../runner/kubernetes/namespace.js';
import { projectNetworkPolicy, type NetworkPolicyInput } from '../runner/kubernetes/network-policy.js';
import { dataClaim } from '../runner/kubernetes/persistent-volume-claim.js';
import { appSecret, artifactCredentialSecret } from '../runner/kubernetes/secrets.js';
import { releaseService } from '../runner/kubernetes/service.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

const PROJECT = 'prj_7m2kq4x9ab3cd5ef';
const RELEASE = 'rel_p2x8k4m7qa9c3d5e';

/** The example project every block shows (ids in svc's own format; digests of fixed strings). */
const app: KubernetesAppInput = {
  projectId: PROJECT,
  releaseId: RELEASE,
  generation: 12,
  releaseDigest: sha256('example release'),
  image: `registry.example.com/svc-node@sha256:${sha256('example base image')}`,
  artifactUrl: `http://svc-release-endpoint.svc-system.svc:7071/v1/releases/${RELEASE}/artifact`,
  databaseFile: 'app.db',
  limits: defaultContainerLimits,
  releaseSize: '256m',
  stopGraceMs: 10_000,
  role: 'app',
  entry: 'dist/server.js',
  env: { PUBLIC_GREETING: 'hello' },
  secretNames: ['STRIPE_KEY', 'SESSION_SECRET'],
  port: 8080,
  health: { path: '/healthz', timeoutMs: 30_000 },
};

const network: NetworkPolicyInput = {
  projectId: PROJECT,
  appPort: app.port,
  ingress: { namespace: 'svc-system', podLabels: { 'app.kubernetes.io/name': 'svc-ingress' } },
  artifactEndpoint: { namespace: 'svc-system', podLabels: { 'app.kubernetes.io/name': 'svc-control-plane' }, port: 7071 },
};

// Placeholders only: a real value never appears in the docs.
const PLACEHOLDER = '<set by svc from the project secret>';
const EXPIRES = new Date(Date.UTC(2030, 0, 1));

function yamlBlock(object: unknown): string {
  return ['```yaml', stringify(object, { aliasDuplicateObjects: false, lineWidth: 0 }).trimEnd(), '```'].join('\n');
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** `object` without the keys whose values equal `reference`'s. */
function without<T extends object>(object: T, reference: object): Partial<T> {
  return Object.fromEntries(Object.entries(object).filter(([key, value]) => !same(value, (reference as Record<string, unknown>)[key]))) as Partial<T>;
}

/** The migrate Job with what its pod shares with the Deployment's pod left out (the full Job is in the tests). */
function abridgedJob(): string {
  const job = releaseJob({ ...app, jobId: 'job_q4m7x2k9p3a8c5d6', type: 'migrate' });
  const appPod = releaseDeployment(app).spec?.template.spec;
  const pod = job.spec?.template.spec;
  const [container] = pod?.containers ?? [];
  if (appPod === undefined || pod === undefined || container === undefined) throw new Error('the generator made a Job without a pod');
  const shown = {
    ...job,
    spec: {
      ...job.spec,
      template: {
        ...job.spec?.template,
        spec: {
          ...without(pod, appPod),
          containers: [
            {
              ...without(container, appPod.containers[0] ?? {}),
              env: (container.env ?? []).filter((e) => !(appPod.containers[0]?.env ?? []).some((a) => same(a, e))),
            },
          ],
          volumes: (pod.volumes ?? []).filter((v) => !(appPod.volumes ?? []).some((a) => same(a, v))),
        },
      },
    },
  };
  const comment =
    "# Abridged: every pod field equal to the Deployment's above is left out (image, command, securityContext, resources, affinity, the other volumes and mounts, the rest of env).";
  return ['```yaml', comment, stringify(shown, { aliasDuplicateObjects: false, lineWidth: 0 }).trimEnd(), '```'].join('\n');
}

function requirementsTable(): string {
  return ['| The cluster provides | Why |', '| --- | --- |', ...CLUSTER_REQUIREMENTS.map((r) => `| ${r.need} | ${r.why} |`)].join('\n');
}

/** Every generated block by name. */
export const KUBERNETES_DOC_BLOCKS: Readonly<Record<string, () => string>> = {
  namespace: () => yamlBlock(projectNamespace(PROJECT)),
  'network-policy': () => yamlBlock(projectNetworkPolicy(network)),
  'data-claim': () => yamlBlock(dataClaim({ projectId: PROJECT, dataSize: '10g' })),
  'app-secret': () => yamlBlock(appSecret(PROJECT, app.generation, Object.fromEntries(app.secretNames.map((n) => [n, PLACEHOLDER])))),
  'artifact-credential': () =>
    yamlBlock(artifactCredentialSecret({ projectId: PROJECT, releaseId: RELEASE, scope: 'release' }, '<minted-by-the-control-plane>', EXPIRES)),
  deployment: () => yamlBlock(releaseDeployment(app)),
  service: () => yamlBlock(releaseService(PROJECT, 'app')),
  'migrate-job': abridgedJob,
  'cluster-requirements': requirementsTable,
};

const BLOCK = /<!-- generated:([a-z-]+) -->\n[\s\S]*?<!-- \/generated -->/g;

/** `current` with every generated block replaced by the generator's output; every block must appear once. */
export function renderKubernetesDocs(current: string): string {
  const seen = new Set<string>();
  const out = current.replace(BLOCK, (_all, name: string) => {
    const render = KUBERNETES_DOC_BLOCKS[name];
    if (render === undefined) throw new Error(`docs/kubernetes.md has an unknown generated block ${name}`);
    if (seen.has(name)) throw new Error(`docs/kubernetes.md has the generated block ${name} twice`);
    seen.add(name);
    return `<!-- generated:${name} -->\n${render()}\n<!-- /generated -->`;
  });
  const missing = Object.keys(KUBERNETES_DOC_BLOCKS).filter((name) => !seen.has(name));
  if (missing.length > 0) throw new Error(`docs/kubernetes.md lacks the generated blocks ${missing.join(', ')}`);
  return out;
}
