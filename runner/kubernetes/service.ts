// The ClusterIP Service in front of a project's Deployment (`app`) or its canary (`canary`): svc's
// ingress dials `http://<name>.<namespace>.svc` and splits traffic between the two during a canary. Pure.
import type { IService } from 'kubernetes-models/v1/Service';
import { KUBERNETES_LABELS, OBJECT_NAMES, projectNamespaceName } from './kubernetes-names.js';
import { selectorLabels } from './pod-template.js';
import { checkProjectId } from './release-input.js';

/** The port every project Service listens on (the pods' named port `http` behind it). */
export const SERVICE_PORT = 80;

export function releaseService(projectId: string, role: 'app' | 'canary'): IService {
  checkProjectId(projectId);
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: role === 'app' ? OBJECT_NAMES.app : OBJECT_NAMES.canary,
      namespace: projectNamespaceName(projectId),
      labels: selectorLabels(projectId, role),
      annotations: { [KUBERNETES_LABELS.project]: projectId },
    },
    spec: {
      type: 'ClusterIP',
      selector: selectorLabels(projectId, role),
      ports: [{ name: 'http', protocol: 'TCP', port: SERVICE_PORT, targetPort: 'http' }],
      // Only ready pods take traffic: a pod failing readiness leaves the Service until it answers again.
      publishNotReadyAddresses: false,
      sessionAffinity: 'None',
    },
  };
}
