// Validates generated objects against the JSON schema kubernetes-models derives from Kubernetes'
// OpenAPI document (types, required fields, enums), and checks what that schema leaves out: object
// names, label keys and values.
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import type { KubernetesObject } from '../../../runner/kubernetes/project-manifests.js';

const models = { Namespace, NetworkPolicy, PersistentVolumeClaim, Secret, Deployment, Service, Job } as const;

const DNS_LABEL = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?$/;
const LABEL_NAME = /^[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_PREFIX = /^[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?$/;

function checkLabels(where: string, labels: Record<string, string> | undefined): void {
  for (const [key, value] of Object.entries(labels ?? {})) {
    const [prefix, name] = key.includes('/') ? key.split('/') : [undefined, key];
    if (name === undefined || name.length > 63 || !LABEL_NAME.test(name) || (prefix !== undefined && (prefix.length > 253 || !LABEL_PREFIX.test(prefix)))) {
      throw new Error(`${where}: label key ${key} is invalid`);
    }
    if (value.length > 63 || (value !== '' && !LABEL_NAME.test(value))) throw new Error(`${where}: label value ${key}=${value} is invalid`);
  }
}

/** Throws when `object` breaks the Kubernetes schema, or a name or label the API server would refuse. */
export function validateObject(object: KubernetesObject): void {
  const Model = models[object.kind];
  if (object.apiVersion !== Model.apiVersion) throw new Error(`${object.kind} must be ${Model.apiVersion}, not ${object.apiVersion}`);
  new Model(object as never).validate();
  const name = object.metadata?.name ?? '';
  // Every object here is named by a DNS label (Services and Namespaces must be; the rest stay within it).
  if (name.length > 63 || !DNS_LABEL.test(name)) throw new Error(`${object.kind} name ${name} is not a DNS-1123 label`);
  if (object.kind !== 'Namespace' && (object.metadata?.namespace === undefined || !DNS_LABEL.test(object.metadata.namespace)))
    throw new Error(`${object.kind} ${name} needs a namespace`);
  checkLabels(`${object.kind} ${name}`, object.metadata?.labels);
  if (object.kind === 'Deployment' || object.kind === 'Job') checkLabels(`${object.kind} ${name} pods`, object.spec?.template.metadata?.labels);
}
