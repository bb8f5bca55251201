// The NetworkPolicy of a project's namespace: every pod in it (app, canary, jobs) takes connections
// only from svc's ingress pods on the app port, and opens connections only to the cluster DNS and
// the control plane's artifact endpoint. Anything wider (public egress) is an explicit setting. Pure.
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { INetworkPolicyPeer } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicyPeer';
import type { INetworkPolicyEgressRule } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicyEgressRule';
import { SvcError } from '../../src/core/errors.js';
import { isDnsLabel, KUBERNETES_LABELS, OBJECT_NAMES, projectNamespaceName } from './kubernetes-names.js';
import { projectLabels } from './pod-template.js';
import { checkProjectId } from './release-input.js';

/** Pods by namespace and labels (the policy matches pod addresses, after a Service's translation). */
export interface PodPeer {
  namespace: string;
  podLabels: Readonly<Record<string, string>>;
}

export interface NetworkPolicyInput {
  projectId: string;
  /** The port the app listens on in its pods. */
  appPort: number;
  /** svc's ingress pods. */
  ingress: PodPeer;
  /** Where the entrypoint fetches artifacts: the control plane's pods, or an address range outside the cluster. */
  artifactEndpoint: (PodPeer | { cidr: string }) & { port: number };
  /** Default: CoreDNS / kube-dns in kube-system. */
  dns?: PodPeer;
  /** Also allow connections to public addresses (never private, link-local or metadata ranges). Default false. */
  allowPublicEgress?: boolean;
}

export const DEFAULT_DNS: PodPeer = { namespace: 'kube-system', podLabels: { 'k8s-app': 'kube-dns' } };
const PRIVATE_V4 = ['10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.168.0.0/16'];
const PRIVATE_V6 = ['::1/128', 'fc00::/7', 'fe80::/10'];

const LABEL_KEY = /^(?:[a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?\/)?[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;
const CIDR = /^(?:\d{1,3}(?:\.\d{1,3}){3}\/\d{1,2}|[0-9a-fA-F:]+\/\d{1,3})$/;

function invalid(message: string): SvcError {
  return new SvcError('SVC_CONTAINER_INVALID_SPEC', message);
}

function port(value: number): number {
  if (!Number.isSafeInteger(value) || value < 1 || value > 65_535) throw invalid('A port must be 1–65535');
  return value;
}

function podPeer(peer: PodPeer): INetworkPolicyPeer {
  if (!isDnsLabel(peer.namespace)) throw invalid(`${peer.namespace} is not a namespace name`);
  const labels = Object.entries(peer.podLabels);
  if (labels.length === 0) throw invalid('A pod peer needs at least one label (an empty selector means every pod)');
  for (const [key, value] of labels) if (!LABEL_KEY.test(key) || !LABEL_VALUE.test(value)) throw invalid(`${key}=${value} is not a label`);
  return { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': peer.namespace } }, podSelector: { matchLabels: { ...peer.podLabels } } };
}

function endpointPeer(endpoint: NetworkPolicyInput['artifactEndpoint']): INetworkPolicyPeer {
  if ('cidr' in endpoint) {
    if (!CIDR.test(endpoint.cidr)) throw invalid(`${endpoint.cidr} is not a CIDR`);
    return { ipBlock: { cidr: endpoint.cidr } };
  }
  return podPeer(endpoint);
}

export function projectNetworkPolicy(input: NetworkPolicyInput): INetworkPolicy {
  checkProjectId(input.projectId);
  const egress: INetworkPolicyEgressRule[] = [
    {
      to: [podPeer(input.dns ?? DEFAULT_DNS)],
      ports: [
        { protocol: 'UDP', port: 53 },
        { protocol: 'TCP', port: 53 },
      ],
    },
    { to: [endpointPeer(input.artifactEndpoint)], ports: [{ protocol: 'TCP', port: port(input.artifactEndpoint.port) }] },
  ];
  if (input.allowPublicEgress === true) {
    egress.push({ to: [{ ipBlock: { cidr: '0.0.0.0/0', except: PRIVATE_V4 } }, { ipBlock: { cidr: '::/0', except: PRIVATE_V6 } }] });
  }
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: {
      name: OBJECT_NAMES.networkPolicy,
      namespace: projectNamespaceName(input.projectId),
      labels: projectLabels(input.projectId),
      annotations: { [KUBERNETES_LABELS.project]: input.projectId },
    },
    spec: {
      // Every pod of the namespace; listing both types makes whatever no rule allows denied.
      podSelector: {},
      policyTypes: ['Ingress', 'Egress'],
      ingress: [{ from: [podPeer(input.ingress)], ports: [{ protocol: 'TCP', port: port(input.appPort) }] }],
      egress,
    },
  };
}
