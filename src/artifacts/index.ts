// Public surface of src/artifacts: the only code that reads svc.deploy.json or packs/unpacks svc-deploy/1.
export { deployConfigSchema, deployConfigDefaults, parseDeployConfig, type DeployConfig } from './deploy-config.js';
export { readDeployConfig } from './read-deploy-config.js';
export { defaultArtifactLimits, resolveLimits, type ArtifactLimits } from './limits.js';
export { ARTIFACT_MEDIA_TYPE, ARTIFACT_PROTOCOL } from './document.js';
export { packArtifact, type PackedArtifact, type PackProgress } from './pack-artifact.js';
export { writeArtifactFile } from './write-artifact-file.js';
export { decodeArtifact, type DecodedArtifact } from './decode-artifact.js';
export { extractArtifact } from './extract-artifact.js';
export { decodeAndExtractArtifact } from './decode-and-extract.js';
export { stageArtifact, discardStagedArtifact, type StagedArtifact } from './stage-artifact.js';
export { stageArtifactOffThread, warmArtifactDecoder } from './stage-off-thread.js';
export { placeStagedArtifact } from './place-staged-artifact.js';
