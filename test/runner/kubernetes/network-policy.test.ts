import { describe, expect, it } from 'vitest';
import { projectNetworkPolicy } from '../../../runner/kubernetes/network-policy.js';
import { network } from './kubernetes-fixture.js';

const base = { ...network, projectId: 'prj_1', appPort: 3000 };

describe('projectNetworkPolicy', () => {
  it("denies everything in the namespace except ingress from svc's ingress pods on the app port", () => {
    const spec = projectNetworkPolicy(base).spec;
    expect(spec?.podSelector).toEqual({});
    expect(spec?.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(spec?.ingress).toEqual([
      {
        from: [
          {
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'svc-system' } },
            podSelector: { matchLabels: { 'app.kubernetes.io/name': 'svc-ingress' } },
          },
        ],
        ports: [{ protocol: 'TCP', port: 3000 }],
      },
    ]);
  });

  it('allows egress only to the cluster DNS and the artifact endpoint', () => {
    expect(projectNetworkPolicy(base).spec?.egress).toEqual([
      {
        to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } }, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }],
        ports: [
          { protocol: 'UDP', port: 53 },
          { protocol: 'TCP', port: 53 },
        ],
      },
      {
        to: [
          {
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'svc-system' } },
            podSelector: { matchLabels: { 'app.kubernetes.io/name': 'svc-control-plane' } },
          },
        ],
        ports: [{ protocol: 'TCP', port: 7070 }],
      },
    ]);
    const outside = projectNetworkPolicy({
      ...base,
      artifactEndpoint: { cidr: '203.0.113.10/32', port: 443 },
      dns: { namespace: 'dns', podLabels: { app: 'dns' } },
    }).spec?.egress;
    expect(outside?.[0]?.to).toEqual([
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'dns' } }, podSelector: { matchLabels: { app: 'dns' } } },
    ]);
    expect(outside?.[1]).toEqual({ to: [{ ipBlock: { cidr: '203.0.113.10/32' } }], ports: [{ protocol: 'TCP', port: 443 }] });
  });

  it('opens public egress only when asked, never to private, link-local or metadata ranges', () => {
    const egress = projectNetworkPolicy({ ...base, allowPublicEgress: true }).spec?.egress ?? [];
    expect(egress).toHaveLength(3);
    const [v4, v6] = egress[2]?.to ?? [];
    expect(v4?.ipBlock?.cidr).toBe('0.0.0.0/0');
    expect(v4?.ipBlock?.except).toEqual(
      expect.arrayContaining(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '100.64.0.0/10', '127.0.0.0/8']),
    );
    expect(v6?.ipBlock).toEqual({ cidr: '::/0', except: ['::1/128', 'fc00::/7', 'fe80::/10'] });
    expect(egress[2]?.ports).toBeUndefined();
  });

  it('refuses an empty pod selector (it would mean every pod), bad namespaces, labels, CIDRs and ports', () => {
    expect(() => projectNetworkPolicy({ ...base, ingress: { namespace: 'svc-system', podLabels: {} } })).toThrow(/at least one label/);
    expect(() => projectNetworkPolicy({ ...base, ingress: { namespace: 'Svc_System', podLabels: { a: 'b' } } })).toThrow(/namespace/);
    expect(() => projectNetworkPolicy({ ...base, ingress: { namespace: 'svc-system', podLabels: { 'a b': 'c' } } })).toThrow(/label/);
    expect(() => projectNetworkPolicy({ ...base, artifactEndpoint: { cidr: 'everywhere', port: 443 } })).toThrow(/CIDR/);
    expect(() => projectNetworkPolicy({ ...base, appPort: 70_000 })).toThrow(/port/);
  });
});
