// The interface every app runner implements: the process runner here, the podman container runner
// later. The supervisor and the release transaction only ever talk to this interface.

/** Everything needed to start one release of one project. Secrets travel only in the environment. */
export interface AppStartSpec {
  projectId: string;
  releaseId: string;
  /** Absolute path of the extracted (read-only) release directory; the app's working directory. */
  releaseDir: string;
  /** `entry` of svc.deploy.json: a relative `.js`/`.mjs` path inside the release directory. */
  entry: string;
  /** Persistent project data directory (outside release directories). */
  dataDir: string;
  /** Absolute path of the project SQLite database (`database.path` resolved in dataDir). */
  databasePath: string;
  /** Public configuration (`env` of svc.deploy.json); reserved names are rejected. */
  env: Readonly<Record<string, string>>;
  /** Decrypted secrets, name → value; never logged, never in argv, never persisted by the runner. */
  secrets: Readonly<Record<string, string>>;
  /** Further platform-set `SVC_*` variables (recovery's SVC_RECOVERY_DIR/KEY); treated like secrets. */
  platformEnv?: Readonly<Record<string, string>>;
  /** Port to listen on; a free loopback port is allocated when omitted. */
  port?: number;
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** The release's digest and health route (drivers that run the original artifact and probe health themselves, e.g. swarm). */
  release?: { digest: string; health: { path: string; timeoutMs: number } };
}

/** How an app ended. `code`/`signal` are null when the exit was observed without a parent (adopted). */
export interface AppExit {
  code: number | null;
  signal: string | null;
  /** Milliseconds since the epoch. */
  at: number;
}

/** Durable description of a running app, persisted by the supervisor so a restarted control plane can re-adopt it. */
export interface RunningAppRecord {
  kind: 'process' | 'container' | 'sandbox' | 'swarm';
  id: string;
  projectId: string;
  releaseId: string;
  port: number;
  host: string;
  startedAt: number;
  /** Process runner: leader pid (also the process-group id) and its /proc start time (guards pid reuse). */
  pid?: number;
  processStartTime?: string | null;
  /** Process runner: directory holding the raw stdout/stderr capture of this run. */
  runDir?: string;
  /** Container runner: container name or id. */
  containerId?: string;
  /** Sandbox runner: the sandbox's init (its session leads the app) and its network helper, each with /proc start time. */
  sandbox?: { initPid: number; initStartTime: string | null; netPid?: number; netStartTime?: string | null; uid?: number };
  /** Swarm driver: the service, its task and the generation of the release it runs. */
  swarm?: { serviceName: string; taskId: string; generation: number; role: 'app' | 'canary' };
}

export interface StopOptions {
  /** Time between SIGTERM and SIGKILL (default: the runner's configured grace). */
  graceMs?: number;
}

/** A started (or re-adopted) app. */
export interface RunningApp {
  readonly id: string;
  readonly projectId: string;
  readonly releaseId: string;
  readonly pid?: number;
  readonly port: number;
  readonly host: string;
  /** The exit, once it happened. */
  readonly exited: AppExit | null;
  /** What to persist to re-adopt this app later. */
  record(): RunningAppRecord;
  /** Stop the whole app (process group / container): SIGTERM, then SIGKILL after the grace period. */
  stop(options?: StopOptions): Promise<AppExit>;
  /** Resolves when the app has exited, for whatever reason. */
  wait(): Promise<AppExit>;
  /** Register an exit listener (called once; immediately if already exited). Returns an unsubscribe function. */
  onExit(listener: (exit: AppExit) => void): () => void;
  /** Stop observing without stopping the app (control-plane shutdown); `adopt(record())` resumes later. */
  detach(): void;
  /**
   * Resolves once the app listens on a TCP port, as far as the runner sees it without a request (until
   * `signal` aborts). Only a hint to probe health at once instead of after the next back-off pause, never
   * health itself; runners that cannot tell cheaply leave it out.
   */
  listening?(signal: AbortSignal): Promise<void>;
}

/** Starts apps and re-adopts ones started by an earlier control-plane process. */
export interface AppRunner {
  readonly kind: 'process' | 'container' | 'sandbox';
  /** Start a release; resolves once the app was spawned (health is checked separately). */
  start(spec: AppStartSpec): Promise<RunningApp>;
  /** Re-attach to a recorded app if it is still the same running app; null if it is gone. */
  adopt(record: RunningAppRecord): Promise<RunningApp | null>;
}
