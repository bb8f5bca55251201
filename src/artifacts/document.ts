// The svc-deploy/1 document: types, constants and its canonical encoding (docs/artifact-format.md).
import type { DeployConfig } from './deploy-config.js';
import { readServiceVersion } from './service-version.js';

/** Media type of an artifact on the wire. */
export const ARTIFACT_MEDIA_TYPE = 'application/vnd.svc.deploy+gzip';
/** Document protocol; a reader rejects any other value. */
export const ARTIFACT_PROTOCOL = 'svc-deploy/1';
/** How the files were gathered (walk rules, mode normalization); bumps when those rules change. */
export const BUILDER_PROTOCOL = 'svc-builder/1';
/** The svc version that packs, taken from package.json. */
const SERVICE_VERSION: string = readServiceVersion();
/** Regular file, not executable (0100644). */
export const MODE_FILE = 0o100644;
/** Regular file, executable (0100755). */
export const MODE_EXECUTABLE = 0o100755;
/** File extension of artifact files written locally. */
export const ARTIFACT_FILE_EXTENSION = '.svc.gz';

/** One file of the artifact, without its content. */
export interface ArtifactFileEntry {
  path: string;
  size: number;
  mode: number;
  sha256: string;
}

/** Everything in the document before the file list. */
export interface ArtifactHeader {
  protocol: typeof ARTIFACT_PROTOCOL;
  builder: typeof BUILDER_PROTOCOL;
  service: { name: string; version: string };
  runtime: { name: string; version: string };
  config: DeployConfig;
}

/** The document as a reader sees it; file contents are carried separately (DecodedFile / on disk). */
export interface ArtifactDocument extends ArtifactHeader {
  files: ArtifactFileEntry[];
}

/** The header svc writes today: this svc version and the Node.js runtime doing the packing. */
export function currentHeader(config: DeployConfig): ArtifactHeader {
  return {
    protocol: ARTIFACT_PROTOCOL,
    builder: BUILDER_PROTOCOL,
    service: { name: 'svc', version: SERVICE_VERSION },
    runtime: { name: 'node', version: process.versions.node },
    config,
  };
}

/** Canonical JSON of a plain value: object keys sorted by code unit, no whitespace, strings as JSON.stringify writes them. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isSafeInteger(value)) throw new TypeError('canonical JSON holds integers only');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

/** The exact bytes (as a string) from the start of the document up to and including `"files":[`. */
export function encodeHeader(header: ArtifactHeader): string {
  // Fixed top-level order so a streaming reader meets protocol first and files last.
  return (
    `{"protocol":${JSON.stringify(header.protocol)},"builder":${JSON.stringify(header.builder)}` +
    `,"service":{"name":${JSON.stringify(header.service.name)},"version":${JSON.stringify(header.service.version)}}` +
    `,"runtime":{"name":${JSON.stringify(header.runtime.name)},"version":${JSON.stringify(header.runtime.version)}}` +
    `,"config":${canonicalJson(header.config)}${FILES_MARKER}`
  );
}

/** Separator between the header and the file array; it cannot occur earlier in a canonical header. */
export const FILES_MARKER = ',"files":[';

/** The exact bytes of one file entry up to and including the opening quote of its base64 content. */
export function encodeFileOpen(entry: ArtifactFileEntry): string {
  return `{"path":${JSON.stringify(entry.path)},"size":${entry.size},"mode":${entry.mode},"sha256":"${entry.sha256}","content":"`;
}

/** Marker that ends a file entry's metadata and opens its content. */
export const CONTENT_MARKER = ',"content":"';
/** Closes a file entry after its content. */
export const FILE_CLOSE = '"}';
/** Ends the document. */
export const DOCUMENT_CLOSE = ']}';

/** Length of the canonical (padded, standard alphabet) base64 encoding of `size` bytes. */
export function base64Length(size: number): number {
  return Math.ceil(size / 3) * 4;
}
