// The subset of the Docker Engine API v1.41 request bodies svc sends, as types (field names are the
// API's own). Only what svc sets is typed; every field exists in v1.41 (Docker 20.10).

export type EngineLabels = Record<string, string>;

export interface EngineMount {
  Type: 'volume' | 'tmpfs';
  Target: string;
  Source?: string;
  ReadOnly?: boolean;
  VolumeOptions?: { NoCopy: boolean; Labels: EngineLabels };
  TmpfsOptions?: { SizeBytes: number; Mode: number };
}

export interface EngineSecretReference {
  SecretID: string;
  SecretName: string;
  File: { Name: string; UID: string; GID: string; Mode: number };
}

export interface EngineHealthCheck {
  /** Exec form only: the image has no /bin/sh. */
  Test: string[];
  Interval: number;
  Timeout: number;
  Retries: number;
  StartPeriod: number;
}

export interface EngineContainerSpec {
  Image: string;
  Labels: EngineLabels;
  Command: string[];
  Args: string[];
  Env: string[];
  Dir: string;
  User: string;
  ReadOnly: true;
  Init: true;
  CapabilityDrop: ['ALL'];
  CapabilityAdd: [];
  Ulimits: Array<{ Name: string; Soft: number; Hard: number }>;
  Mounts: EngineMount[];
  Secrets: EngineSecretReference[];
  StopGracePeriod: number;
  StopSignal: 'SIGTERM';
  HealthCheck?: EngineHealthCheck;
}

export interface EngineTaskTemplate {
  ContainerSpec: EngineContainerSpec;
  Resources: { Limits: { NanoCPUs: number; MemoryBytes: number; Pids: number } };
  RestartPolicy: { Condition: 'none' | 'on-failure' | 'any'; Delay: number; MaxAttempts: number; Window: number };
  Placement: { Constraints: string[] };
  Networks: Array<{ Target: string }>;
  ForceUpdate: number;
}

export interface EngineUpdateConfig {
  Parallelism: number;
  Delay: number;
  FailureAction: 'pause' | 'continue' | 'rollback';
  Monitor: number;
  MaxFailureRatio: number;
  Order: 'stop-first' | 'start-first';
}

export interface EnginePortConfig {
  Protocol: 'tcp';
  TargetPort: number;
  /** Absent: the engine picks a free host port per task (read back from the task's PortStatus). */
  PublishedPort?: number;
  PublishMode: 'host' | 'ingress';
}

export interface EngineServiceSpec {
  Name: string;
  Labels: EngineLabels;
  TaskTemplate: EngineTaskTemplate;
  Mode: { Replicated: { Replicas: number } } | { ReplicatedJob: { MaxConcurrent: number; TotalCompletions: number } };
  UpdateConfig?: EngineUpdateConfig;
  RollbackConfig?: EngineUpdateConfig;
  EndpointSpec: { Mode: 'vip' | 'dnsrr'; Ports: EnginePortConfig[] };
}

/** `POST /secrets/create`: the only body that carries a secret value (base64, once). */
export interface EngineSecretSpec {
  Name: string;
  Labels: EngineLabels;
  Data: string;
}
