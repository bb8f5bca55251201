// Public surface of src/artifacts: the only code that reads svc.deploy.json or packs/unpacks svc-deploy/1.
export { deployConfigSchema, deployConfigDefaults, parseDeployConfig, isReservedEnvName, RESERVED_ENV_NAMES, RESERVED_ENV_PREFIX, type DeployConfig } from './deploy-config.js';
export { readDeployConfig, DEPLOY_CONFIG_FILE } from './read-deploy-config.js';
export { defaultArtifactLimits, resolveLimits, type ArtifactLimits } from './limits.js';
export {
  ARTIFACT_MEDIA_TYPE,
  ARTIFACT_PROTOCOL,
  BUILDER_PROTOCOL,
  SERVICE_VERSION,
  MODE_FILE,
  MODE_EXECUTABLE,
  ARTIFACT_FILE_EXTENSION,
  canonicalJson,
  type ArtifactDocument,
  type ArtifactFileEntry,
  type ArtifactHeader,
} from './document.js';
export { packArtifact, type PackedArtifact, type PackProgress, type PackOptions } from './pack-artifact.js';
export { writeArtifactFile, LOCAL_ARTIFACT_DIR } from './write-artifact-file.js';
export { decodeArtifact, type DecodedArtifact, type DecodeOptions } from './decode-artifact.js';
export type { DecodedFile } from './document-parser.js';
export { extractArtifact } from './extract-artifact.js';
export { artifactRoots, normalizeMode } from './walk-included.js';
export { forbiddenNameReason, pathShapeViolation } from './path-rules.js';
export { decodeAndExtractArtifact } from './decode-and-extract.js';
export { stageArtifact, discardStagedArtifact, type StagedArtifact } from './stage-artifact.js';
export { stageArtifactOffThread, warmArtifactDecoder } from './stage-off-thread.js';
export { placeStagedArtifact } from './place-staged-artifact.js';
