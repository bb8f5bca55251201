// One namespace per project. The project is svc's unit of isolation everywhere (its own podman network,
// its own swarm network), and in Kubernetes the namespace is the unit that scopes Secrets, RBAC,
// NetworkPolicy and Pod Security: per project, one app can never read another's Secret or reach its
// pods, even within an organization, and deleting a project can end with deleting its namespace. Pure.
import type { INamespace } from 'kubernetes-models/v1/Namespace';
import { KUBERNETES_LABELS, projectNamespaceName } from './kubernetes-names.js';
import { projectLabels } from './pod-template.js';
import { checkProjectId } from './release-input.js';

/** Pod Security Admission: the API server refuses any pod in the namespace weaker than `restricted`. */
export const POD_SECURITY_LABELS = {
  'pod-security.kubernetes.io/enforce': 'restricted',
  'pod-security.kubernetes.io/enforce-version': 'latest',
  'pod-security.kubernetes.io/audit': 'restricted',
  'pod-security.kubernetes.io/warn': 'restricted',
} as const;

export function projectNamespace(projectId: string): INamespace {
  checkProjectId(projectId);
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: projectNamespaceName(projectId),
      labels: { ...projectLabels(projectId), ...POD_SECURITY_LABELS },
      annotations: { [KUBERNETES_LABELS.project]: projectId },
    },
  };
}
