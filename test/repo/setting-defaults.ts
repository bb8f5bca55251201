// What each SVC_* setting is when unset, asked of the code that reads it (its zod schema and the
// reader around it, with an empty environment), so the docs-drift test can compare the defaults the
// docs state. A setting the docs give a default for must be listed here: either with its reader or,
// where no pure reader exists, with the reason it is not checked.
import { generateKeyPairSync } from 'node:crypto';
import { defaultContainerLimits } from '../../runner/container/podman-args.js';
import { defaultPodmanGlobal } from '../../runner/container/podman-command.js';
import { readRunnerNodeSettings } from '../../runner/runner-node-settings.js';
import { DEFAULT_SANDBOX_UID_BASE, readRunnerSettings, readSandboxSettings } from '../../runner/runner-settings.js';
import { readSupervisionSettings } from '../../runner/supervision/supervision-settings.js';
import { DEFAULT_DRAIN_MS } from '../../runner/swarm/entrypoint/task-settings.js';
import { readDriverChoice, readSwarmSettings } from '../../runner/swarm/swarm-settings.js';
import { readBackupSettings } from '../../src/backups/backup-settings.js';
import { parseGithubConfig } from '../../src/github/github-config.js';
import { readNodeSettings } from '../../src/nodes/node-settings.js';
import { DEFAULT_EXPORT_INTERVAL_MS } from '../../src/ops/audit-export/audit-exporter.js';
import { drillConfigFromEnv } from '../../src/ops/drills/drill-config.js';
import { monitorConfigFromEnv } from '../../src/ops/monitor/monitor-config.js';
import { usageConfigFromEnv } from '../../src/ops/usage/usage-config.js';
import { readPreviewSettings } from '../../src/previews/preview-settings.js';
import { readReleaseSettings } from '../../src/releases/release-limits.js';

export type SettingDefault = { read: () => unknown } | { unchecked: string };

const monitorOn = { SVC_OPS_WEBHOOK_URL: 'http://127.0.0.1:9/hook', SVC_OPS_WEBHOOK_SECRET: 'a-secret-of-16-chars' };
const monitor = () => monitorConfigFromEnv(monitorOn)!;
const swarm = () => readSwarmSettings({ SVC_SWARM_ENDPOINT: 'http://10.0.0.1:7071' });
const githubOn = () => ({
  APP_ID: '1',
  PRIVATE_KEY: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
  WEBHOOK_SECRET: 'webhook-secret-of-some-length',
});

/** Defaults of the settings read outside src/core/config.ts (whose table is generated from its schema). */
export const settingDefaults: Record<string, SettingDefault> = {
  SVC_PROJECT_MAX_RELEASES: { read: () => readReleaseSettings({}).maxRetainedArtifacts },
  SVC_PROJECT_STORAGE_BYTES: { read: () => readReleaseSettings({}).maxStorageBytes },
  SVC_DEPLOY_LOCK_WAIT_MS: { read: () => readReleaseSettings({}).lockWaitMs },
  SVC_DRAIN_TIMEOUT_MS: { read: () => readReleaseSettings({}).drainTimeoutMs },
  SVC_HOLD_REQUESTS_MS: { read: () => readReleaseSettings({}).holdMs },
  SVC_UPLOAD_IDLE_TIMEOUT_MS: { read: () => readReleaseSettings({}).uploadIdleTimeoutMs },
  SVC_NODE_LEASE_MS: { read: () => readNodeSettings({}).nodeLeaseMs },
  SVC_NODE_OPERATION_LEASE_MS: { read: () => readNodeSettings({}).operationLeaseMs },
  SVC_NODE_DEPLOY_WAIT_MS: { read: () => readNodeSettings({}).deployWaitMs },
  SVC_NODE_OPERATION_MAX_ATTEMPTS: { read: () => readNodeSettings({}).maxAttempts },
  SVC_NODE_RETRY_DELAY_MS: { read: () => readNodeSettings({}).retryDelayMs },
  SVC_OPS_INTERVAL_MS: { read: () => monitor().intervalMs },
  SVC_OPS_USAGE_WARNING_PERCENT: { read: () => usageConfigFromEnv({}).warningPercent },
  SVC_OPS_UNHEALTHY_GRACE_MS: { read: () => monitor().unhealthyGraceMs },
  SVC_OPS_JOB_GRACE_MS: { read: () => monitor().jobGraceMs },
  SVC_RESTORE_DRILL_INTERVAL_MS: { read: () => drillConfigFromEnv(monitorOn)!.intervalMs },
  SVC_RESTORE_DRILL_TIMEOUT_MS: { read: () => drillConfigFromEnv(monitorOn)!.timeoutMs },
  SVC_RESTORE_DRILL_SECRETS: { read: () => drillConfigFromEnv(monitorOn)!.withSecrets },
  SVC_GITHUB_BUILD_TIMEOUT_SECONDS: { read: () => parseGithubConfig(githubOn())!.buildTimeoutMs / 1000 },
  SVC_GITHUB_SWEEP_SECONDS: { read: () => parseGithubConfig(githubOn())!.sweepIntervalMs / 1000 },
  SVC_DRAIN_MS: { read: () => DEFAULT_DRAIN_MS },
  SVC_RUNNER: { read: () => readRunnerSettings({}).kind },
  SVC_CONTAINER_IMAGE: { read: () => readRunnerSettings({}).image },
  SVC_CONTAINER_MEMORY: { read: () => readRunnerSettings({}).limits.memory ?? defaultContainerLimits.memory },
  SVC_CONTAINER_PIDS: { read: () => readRunnerSettings({}).limits.pids ?? defaultContainerLimits.pids },
  SVC_CONTAINER_CPUS: { read: () => readRunnerSettings({}).limits.cpus ?? defaultContainerLimits.cpus },
  SVC_CONTAINER_USER: { read: () => readRunnerSettings({}).limits.user ?? defaultContainerLimits.user },
  SVC_CONTAINER_TMPFS_SIZE: { read: () => readRunnerSettings({}).limits.tmpfsSize ?? defaultContainerLimits.tmpfsSize },
  SVC_PODMAN: { read: () => readRunnerSettings({}).podman ?? defaultPodmanGlobal.podman },
  SVC_SANDBOX: { read: () => (readSandboxSettings({}).enabled ? 'on' : 'off') },
  SVC_SANDBOX_MEMORY: { read: () => readSandboxSettings({}).limits.memoryBytes },
  SVC_SANDBOX_PROCESSES: { read: () => readSandboxSettings({}).limits.processes },
  SVC_SANDBOX_OPEN_FILES: { read: () => readSandboxSettings({}).limits.openFiles },
  SVC_SANDBOX_UID_BASE: { read: () => readSandboxSettings({}).uidBase ?? DEFAULT_SANDBOX_UID_BASE },
  SVC_SUPERVISOR_LEASE_MS: { read: () => readSupervisionSettings({}).leaseMs },
  SVC_SUPERVISOR_LEASE_WAIT_MS: { read: () => readSupervisionSettings({}).maxLeaseWaitMs },
  SVC_DRIVER: { read: () => readDriverChoice({}) },
  SVC_SWARM_REPLICAS: { read: () => swarm().replicas },
  SVC_SWARM_DRAIN_MS: { read: () => swarm().drainMs },
  SVC_SWARM_STOP_ON_CLOSE: { read: () => (swarm().stopOnClose ? 'on' : 'off') },
  SVC_SWARM_START_TIMEOUT_MS: { read: () => swarm().startTimeoutMs },
  SVC_RUNNER_REGION: { read: () => readRunnerNodeSettings({}).SVC_RUNNER_REGION },
  SVC_RUNNER_CREDENTIALS: { read: () => readRunnerNodeSettings({}).SVC_RUNNER_CREDENTIALS },
  SVC_RUNNER_CAPACITY: { read: () => readRunnerNodeSettings({}).SVC_RUNNER_CAPACITY },
  SVC_RUNNER_CONCURRENCY: { read: () => readRunnerNodeSettings({}).SVC_RUNNER_CONCURRENCY },
  SVC_RUNNER_TIMEOUT_MS: { read: () => readRunnerNodeSettings({}).SVC_RUNNER_TIMEOUT_MS },
  SVC_RUNNER_RETRY_ATTEMPTS: { read: () => readRunnerNodeSettings({}).SVC_RUNNER_RETRY_ATTEMPTS },
  SVC_RUNNER_RETRY_DELAY_MS: { read: () => readRunnerNodeSettings({}).SVC_RUNNER_RETRY_DELAY_MS },
  SVC_RUNNER_MAX_ARTIFACT_BYTES: { read: () => readRunnerNodeSettings({}).SVC_RUNNER_MAX_ARTIFACT_BYTES },
  SVC_RUNNER_DATA_DIR: { read: () => readRunnerNodeSettings({}).SVC_RUNNER_DATA_DIR },
  SVC_BACKUP_LOCK_WAIT_MS: { read: () => readBackupSettings({}).lockWaitMs },
  SVC_BACKUP_TICK_MS: { read: () => readBackupSettings({}).tickMs },
  SVC_PREVIEW_LIMIT: { read: () => readPreviewSettings({}).limit },
  SVC_PREVIEW_IDLE_MS: { read: () => readPreviewSettings({}).idleStopMs },
  SVC_AUDIT_EXPORT_INTERVAL_MS: { read: () => DEFAULT_EXPORT_INTERVAL_MS },
  SVC_BUCKET_S3_REGION: { unchecked: 'applied by the S3 storage backend of src/runtime/buckets/bucket-manager-from-env.ts, which does not expose it' },
  SVC_BUCKET_DIR: { unchecked: 'a path the app process resolves against its working directory (src/runtime/buckets/bucket-manager-from-env.ts)' },
  SVC_BUCKET_CATALOG: { unchecked: 'derived from SVC_BUCKET_DIR at run time; the docs state the derivation, not a value' },
  SVC_B15_MIGRATION_ROWS: { unchecked: 'a benchmark knob read by test/bench/b15-livez-under-load.bench.ts, not a product setting' },
};
