import { decodeArtifact, type DecodedArtifact, type DecodeOptions } from './decode-artifact.js';
import { extractArtifact } from './extract-artifact.js';

/** Verify an artifact completely, then extract it into `targetDir`; nothing is written unless verification passed. */
export async function decodeAndExtractArtifact(source: Buffer | AsyncIterable<Uint8Array>, targetDir: string, options: DecodeOptions = {}): Promise<DecodedArtifact> {
  const decoded = await decodeArtifact(source, options);
  await extractArtifact(decoded, targetDir);
  return decoded;
}
