import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { describe, expect, it } from 'vitest';
import { releaseDeployment } from '../../../runner/kubernetes/deployment.js';
import { JOB_TYPES, releaseJob } from '../../../runner/kubernetes/job.js';
import { projectNetworkPolicy } from '../../../runner/kubernetes/network-policy.js';
import { projectManifests, type KubernetesObject } from '../../../runner/kubernetes/project-manifests.js';
import { artifactCredentialSecret } from '../../../runner/kubernetes/secrets.js';
import { appInput, jobInput, manifestsInput, network } from './kubernetes-fixture.js';
import { validateObject } from './schema-validate.js';

const { canary: _canary, ...withoutCanary } = manifestsInput;

function everyObject(): KubernetesObject[] {
  return [
    ...projectManifests(manifestsInput),
    ...projectManifests({
      ...withoutCanary,
      release: { ...withoutCanary.release, secretValues: {}, replicas: 3 },
      data: { dataSize: '1g', storageClassName: 'local-path' },
    }),
    ...JOB_TYPES.map((type, i) => releaseJob({ ...jobInput, jobId: `job_${i}`, type, timeoutMs: 60_000 })),
    projectNetworkPolicy({ ...network, projectId: 'prj_1', appPort: 3000, artifactEndpoint: { cidr: '203.0.113.0/24', port: 443 }, allowPublicEgress: true }),
    artifactCredentialSecret({ projectId: 'prj_1', releaseId: 'rel_1', scope: 'job', jobId: 'job_1' }, 'svc-rc1.a.b', new Date(0)),
  ];
}

/** What Pod Security's `restricted` level demands of a pod (the namespace enforces it). */
function restrictedViolations(object: KubernetesObject): string[] {
  if (object.kind !== 'Deployment' && object.kind !== 'Job') return [];
  const pod = object.spec?.template.spec;
  const out: string[] = [];
  if (pod === undefined) return ['no pod spec'];
  if (pod.securityContext?.runAsNonRoot !== true) out.push('pod runAsNonRoot');
  if (pod.securityContext?.seccompProfile?.type !== 'RuntimeDefault') out.push('pod seccomp');
  if (pod.hostNetwork === true || pod.hostPID === true || pod.hostIPC === true) out.push('host namespaces');
  for (const volume of pod.volumes ?? []) {
    const kinds = Object.keys(volume).filter((k) => k !== 'name');
    if (!kinds.every((k) => ['emptyDir', 'secret', 'persistentVolumeClaim', 'configMap', 'projected', 'downwardAPI'].includes(k)))
      out.push(`volume ${volume.name}`);
  }
  for (const c of pod.containers) {
    const sc = c.securityContext;
    if (sc?.allowPrivilegeEscalation !== false) out.push(`${c.name} allowPrivilegeEscalation`);
    if (sc?.privileged === true) out.push(`${c.name} privileged`);
    if (JSON.stringify(sc?.capabilities) !== JSON.stringify({ drop: ['ALL'] })) out.push(`${c.name} capabilities`);
    if (sc?.runAsUser === 0) out.push(`${c.name} root`);
    if ((c.ports ?? []).some((p) => p.hostPort !== undefined)) out.push(`${c.name} hostPort`);
  }
  return out;
}

describe('generated objects against the Kubernetes schema', () => {
  it('every object the generator makes is valid, with valid names and labels', () => {
    const objects = everyObject();
    expect(new Set(objects.map((o) => o.kind))).toEqual(
      new Set(['Namespace', 'NetworkPolicy', 'PersistentVolumeClaim', 'Secret', 'Deployment', 'Service', 'Job']),
    );
    for (const object of objects) expect(() => validateObject(object), `${object.kind} ${object.metadata?.name}`).not.toThrow();
  });

  it('every pod meets Pod Security restricted', () => {
    for (const object of everyObject()) expect(restrictedViolations(object), `${object.kind} ${object.metadata?.name}`).toEqual([]);
  });

  it('the validator rejects a wrong field type, a missing required field, a wrong enum and a bad name', () => {
    const good = releaseDeployment(appInput);
    expect(() => validateObject(good)).not.toThrow();
    const wrongType = structuredClone(good) as unknown as { spec: { replicas: unknown } };
    wrongType.spec.replicas = 'one';
    expect(() => new Deployment(wrongType as never).validate()).toThrow(/replicas must be integer/);
    const deepWrongType = structuredClone(good);
    (deepWrongType.spec?.template.spec?.containers[0]?.securityContext as Record<string, unknown>).runAsUser = '10001';
    expect(() => validateObject(deepWrongType)).toThrow(/runAsUser must be integer/);
    const missing = structuredClone(good) as { spec?: { selector?: unknown } };
    delete missing.spec?.selector;
    expect(() => validateObject(missing as KubernetesObject)).toThrow(/selector/);
    const wrongEnum = structuredClone(good);
    (wrongEnum.spec?.template.spec?.containers[0] as unknown as Record<string, unknown>).imagePullPolicy = 'Sometimes';
    expect(() => validateObject(wrongEnum)).toThrow(/imagePullPolicy/);
    const badName = structuredClone(good);
    if (badName.metadata !== undefined) badName.metadata.name = 'App_1';
    expect(() => validateObject(badName)).toThrow(/DNS-1123/);
    const badLabel = structuredClone(good);
    if (badLabel.metadata !== undefined) badLabel.metadata.labels = { 'svc.digest': 'b'.repeat(64) };
    expect(() => validateObject(badLabel)).toThrow(/label value/);
  });
});
