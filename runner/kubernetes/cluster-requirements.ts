// What a pod spec cannot say, so the cluster running svc's projects must provide it. The future driver
// checks what it can read (the namespace's Pod Security labels, a default StorageClass); the rest is
// the operator's setup, listed in docs/kubernetes.md from this list.

export interface ClusterRequirement {
  /** What the cluster provides. */
  need: string;
  /** Which podman or swarm hardening it stands in for, or why svc depends on it. */
  why: string;
}

export const CLUSTER_REQUIREMENTS: readonly ClusterRequirement[] = [
  {
    need: 'a network plugin that enforces NetworkPolicy, Egress included (Calico, Cilium, …)',
    why: "without one the policy is stored and ignored: every pod reaches every other (the podman runner's isolated bridge per project)",
  },
  { need: "the kubelet's `podPidsLimit` set (256 to match `SVC_CONTAINER_PIDS`)", why: 'a pod spec has no pid limit (`--pids-limit`)' },
  { need: "no swap for pods (the kubelet's default `NoSwap`)", why: 'a pod spec has no swap limit (`--memory-swap` equal to `--memory`)' },
  { need: 'open-file and process ulimits set in the container runtime (`nofile=4096`, `nproc=1024`)', why: 'a pod spec has no ulimits (`--ulimit`)' },
  {
    need: 'Pod Security Admission (on by default since Kubernetes 1.25)',
    why: 'the namespace labels make the API server refuse any pod weaker than `restricted`',
  },
  {
    need: 'a StorageClass with ReadWriteOnce volumes, `volumeBindingMode: WaitForFirstConsumer`',
    why: "the data claim binds where the first pod is scheduled; the pods' affinity keeps the rest there",
  },
  {
    need: 'the base image (Node and the entrypoint) reachable from every node by digest: a registry the nodes pull from, or preloaded',
    why: 'releases are fetched by the entrypoint, but the image itself is not',
  },
  {
    need: "svc's ingress and control plane running in the cluster (or an address range the policy names)",
    why: 'the policy admits connections only from the ingress pods and allows the artifact fetch only to the control plane',
  },
];
