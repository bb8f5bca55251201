// The claim holding a project's data (its SQLite database, buckets, snapshots), mounted at /data by
// the app, the canary and every job. ReadWriteOnce: the volume attaches to one node at a time, so
// every pod of the project runs on that node (the pods' affinity says so). Not ReadWriteOncePod: a new
// pod must start beside the old one during a rollout. Pure.
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { SvcError } from '../../src/core/errors.js';
import { isDnsLabel, KUBERNETES_LABELS, OBJECT_NAMES, projectNamespaceName } from './kubernetes-names.js';
import { sizeQuantity } from './kubernetes-quantities.js';
import { projectLabels } from './pod-template.js';
import { checkProjectId } from './release-input.js';

export interface DataClaimInput {
  projectId: string;
  /** Requested size, podman-style (`10g`). */
  dataSize: string;
  /** Absent: the cluster's default StorageClass. */
  storageClassName?: string;
}

export function dataClaim(input: DataClaimInput): IPersistentVolumeClaim {
  checkProjectId(input.projectId);
  if (input.storageClassName !== undefined && !isDnsLabel(input.storageClassName))
    throw new SvcError('SVC_CONTAINER_INVALID_SPEC', 'The storage class must be a DNS label');
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: OBJECT_NAMES.data,
      namespace: projectNamespaceName(input.projectId),
      labels: projectLabels(input.projectId),
      annotations: { [KUBERNETES_LABELS.project]: input.projectId },
    },
    spec: {
      accessModes: ['ReadWriteOnce'],
      volumeMode: 'Filesystem',
      resources: { requests: { storage: sizeQuantity(input.dataSize) } },
      ...(input.storageClassName === undefined ? {} : { storageClassName: input.storageClassName }),
    },
  };
}
