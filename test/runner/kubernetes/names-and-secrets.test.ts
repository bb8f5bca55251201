import { describe, expect, it } from 'vitest';
import { artifactCredentialName, fittedName, jobName, labelValue, projectNamespaceName } from '../../../runner/kubernetes/kubernetes-names.js';
import { cpuQuantity, sizeQuantity, wholeSeconds } from '../../../runner/kubernetes/kubernetes-quantities.js';
import { projectNamespace } from '../../../runner/kubernetes/namespace.js';
import { dataClaim } from '../../../runner/kubernetes/persistent-volume-claim.js';
import { appSecret, artifactCredentialSecret } from '../../../runner/kubernetes/secrets.js';

const DNS_LABEL = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?$/;

describe('names', () => {
  it('keeps DNS-label ids readable and hashes the rest under a prefix plain names never take', () => {
    expect(projectNamespaceName('shop')).toBe('svc-p-shop');
    expect(projectNamespaceName('prj_1')).toMatch(/^svc-ph-prj-1-[0-9a-f]{20}$/);
    expect(projectNamespaceName('Shop')).not.toBe(projectNamespaceName('shop'));
    expect(projectNamespaceName('prj_1')).not.toBe(projectNamespaceName('prj-1'));
    expect(projectNamespaceName('a'.repeat(57))).toBe(`svc-p-${'a'.repeat(57)}`);
    expect(projectNamespaceName('a'.repeat(58))).toMatch(/^svc-ph-a{24}-[0-9a-f]{20}$/);
    expect(fittedName('svc-p', '___')).toMatch(/^svc-ph-[0-9a-f]{20}$/);
    for (const id of ['prj_k3jq2x7mz4abcdefgh', 'A.B.C', '-x-', 'x'.repeat(128), '___', 'h-1']) {
      for (const name of [projectNamespaceName(id), artifactCredentialName('release', id), artifactCredentialName('job', id)]) {
        expect(name.length, name).toBeLessThanOrEqual(63);
        expect(name, id).toMatch(DNS_LABEL);
      }
    }
    expect(artifactCredentialName('release', 'r1')).not.toBe(artifactCredentialName('job', 'r1'));
    expect(jobName('j_1')).toMatch(/^jobh-j-1-[0-9a-f]{20}$/);
  });

  it('uses ids as label values when they are valid ones, else a hash that no plain id can equal', () => {
    expect(labelValue('prj_1')).toBe('prj_1');
    expect(labelValue('x'.repeat(64))).toMatch(/^h-[0-9a-f]{40}$/);
    expect(labelValue('_x')).toMatch(/^h-[0-9a-f]{40}$/);
    const hashed = labelValue('x'.repeat(64));
    expect(labelValue(hashed)).not.toBe(hashed);
  });

  it('converts podman-style limits to Kubernetes quantities (binary suffixes, millicores)', () => {
    expect(sizeQuantity('512m')).toBe('512Mi');
    expect(sizeQuantity('2g')).toBe('2Gi');
    expect(sizeQuantity('1536m')).toBe('1536Mi');
    expect(sizeQuantity('100k')).toBe('100Ki');
    expect(sizeQuantity('1000')).toBe('1000');
    expect(cpuQuantity('2')).toBe('2');
    expect(cpuQuantity('0.25')).toBe('250m');
    expect(cpuQuantity('1.5')).toBe('1500m');
    expect(() => cpuQuantity('0.0005')).toThrow(/millicore/);
    expect(() => sizeQuantity('lots')).toThrow();
    expect(wholeSeconds(0)).toBe(1);
    expect(wholeSeconds(1001)).toBe(2);
  });
});

describe('namespace, claim and secrets', () => {
  it('one namespace per project, enforcing Pod Security restricted', () => {
    expect(projectNamespace('prj_1').metadata?.labels).toEqual({
      'app.kubernetes.io/managed-by': 'svc',
      'svc.project': 'prj_1',
      'pod-security.kubernetes.io/enforce': 'restricted',
      'pod-security.kubernetes.io/enforce-version': 'latest',
      'pod-security.kubernetes.io/audit': 'restricted',
      'pod-security.kubernetes.io/warn': 'restricted',
    });
  });

  it('claims the data volume ReadWriteOnce with the size in binary units', () => {
    expect(dataClaim({ projectId: 'prj_1', dataSize: '10g' }).spec).toEqual({
      accessModes: ['ReadWriteOnce'],
      volumeMode: 'Filesystem',
      resources: { requests: { storage: '10Gi' } },
    });
    expect(dataClaim({ projectId: 'prj_1', dataSize: '1g', storageClassName: 'local-path' }).spec?.storageClassName).toBe('local-path');
    expect(() => dataClaim({ projectId: 'prj_1', dataSize: '1g', storageClassName: 'Local Path' })).toThrow(/storage class/);
  });

  it('app secrets: one immutable Opaque Secret per generation, names checked like every runner', () => {
    const secret = appSecret('prj_1', 7, { API_KEY: 'value' });
    expect(secret).toMatchObject({
      type: 'Opaque',
      immutable: true,
      stringData: { API_KEY: 'value' },
      metadata: { name: 'env-g7', labels: { 'svc.generation': '7', 'svc.secret': 'env' } },
    });
    expect(() => appSecret('prj_1', 7, { PORT: '1' })).toThrow(/reserved/);
    expect(() => appSecret('prj_1', 0, {})).toThrow(/generation/);
  });

  it('artifact credentials: a Secret per release or job run, renewable (not immutable), with its expiry', () => {
    const expires = new Date(Date.UTC(2030, 0, 1));
    const release = artifactCredentialSecret({ projectId: 'prj_1', releaseId: 'rel_1', scope: 'release' }, 'svc-rc1.a.b', expires);
    expect(release.immutable).toBeUndefined();
    expect(release.stringData).toEqual({ credential: 'svc-rc1.a.b' });
    expect(release.metadata?.annotations).toEqual({ 'svc.project': 'prj_1', 'svc.release': 'rel_1', 'svc.expires-at': '2030-01-01T00:00:00.000Z' });
    const job = artifactCredentialSecret({ projectId: 'prj_1', releaseId: 'rel_1', scope: 'job', jobId: 'j1' }, 'svc-rc1.c.d', expires);
    expect(job.metadata?.name).toBe('artifact-job-j1');
    expect(job.metadata?.labels?.['svc.secret']).toBe('artifact-job');
    expect(() => artifactCredentialSecret({ projectId: 'prj_1', releaseId: 'rel_1', scope: 'job' }, 'x', expires)).toThrow(/job id/);
    expect(() => artifactCredentialSecret({ projectId: 'prj_1', releaseId: 'rel_1', scope: 'release' }, 'a b', expires)).toThrow(/token/);
    expect(() => artifactCredentialSecret({ projectId: 'prj_1', releaseId: 'rel_1', scope: 'release' }, 'x', new Date(Number.NaN))).toThrow(/expiry/);
  });
});
