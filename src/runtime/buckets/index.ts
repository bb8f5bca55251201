// Managed buckets: public surface (re-exported by @svc-dev/svc/runtime).
export {
  defineBucket,
  defineBuckets,
  BUCKET_DEFAULTS,
  IMAGE_FORMATS,
  type BucketDefinition,
  type BucketDefinitionInput,
  type VariantDefinition,
  type ImageFormat,
} from './define-bucket.js';
export { createBucketManager, type BucketManagerOptions } from './create-bucket-manager.js';
export type { BucketManager, BucketHandle, ManagerUsage } from './bucket-manager.js';
export { bucketManagerFromEnv, backendFromEnv } from './bucket-manager-from-env.js';
export { createLocalVolumeBackend, type LocalVolumeOptions } from './local-volume-backend.js';
export { createS3Backend, type S3BackendOptions } from './s3-backend.js';
export type { StorageBackend, StoredStat, StagingEntry } from './storage-backend.js';
export { platformBucketEnvironment, type PlatformBucketLimits } from './platform-environment.js';
export {
  effectiveMaxObjectBytes,
  quotaViolation,
  deploymentLimitsFromEnv,
  type DeploymentLimits,
  type UsageCounts,
  type ScopedUsage,
} from './effective-limits.js';
export { sniffImage, verifyContent } from './content-sniff.js';
export { signCapability, verifyCapability, MAX_CAPABILITY_MS, type Capability, type CapabilityOperation } from './capability.js';
export type { ObjectInfo } from './bucket-context.js';
export type { UploadTicket, CreateUploadInput, ChunkResult } from './upload-service.js';
export type { ObjectList } from './object-service.js';
export type { BucketHttpContext } from './http-access.js';
// Image variants, agent tools (MCP) and the inventory page (images/, agent/, inventory/).
export * from './images/index.js';
export * from './agent/index.js';
export * from './inventory/index.js';
