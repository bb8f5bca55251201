// @svc-dev/svc/operations: the library operations apps, runner nodes and operators import (point-in-time
// recovery, the deployment provider, audit-export verification); each feature adds its own export lines here.
export { openPointInTimeRecovery, type PointInTimeRecovery, type RecoveryStatus } from './recovery/open-point-in-time-recovery.js';
export { restorePointInTime, type RestoreResult } from './recovery/restore-point-in-time.js';
export { rotateRecoveryEpoch, type RotateRecoveryEpochOptions, type RotatedEpoch } from './recovery/rotate-recovery-epoch.js';
export type { PointInTimeRecoveryOptions, RestorePointInTimeOptions, RecoveryDatabase } from './recovery/recovery-options.js';
export { attachPlatformRecovery, type PlatformRecovery, type PlatformRecoveryOptions } from './recovery/platform/attach-platform-recovery.js';
export { createDeploymentProviderHandler, type DeploymentProviderHandlerOptions } from '../runner/provider/create-deployment-provider-handler.js';
export { createHttpDeploymentProvider, type HttpDeploymentProviderOptions } from '../runner/provider/create-http-deployment-provider.js';
export type { DeploymentProvider, ReconcileRequest, ReconcileResult, ProviderArtifact, DesiredState } from '../runner/provider/provider-contract.js';
export {
  openProviderDeploymentAgent,
  type AgentCoordinator,
  type ProviderDeploymentAgent,
  type ProviderDeploymentAgentOptions,
} from '../runner/provider/open-provider-deployment-agent.js';
export { verifyAuditExport, type AuditExportPublicKey } from './ops/audit-export/verify-audit-export.js';
export type { AuditExportEntry, AuditExportCheckpoint } from './ops/audit-export/export-entry.js';
