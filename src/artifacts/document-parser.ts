// A push parser for the canonical svc-deploy/1 document: verifies each file as its bytes arrive,
// so limits trip early. File contents are decoded a piece at a time and handed to a sink; the parser
// itself never holds more than one chunk of a file, so a huge (or bomb-sized) file costs no memory here.
import { createHash, type Hash } from 'node:crypto';
import { SvcError } from '../core/errors.js';
import { parseDeployConfig, type DeployConfig } from './deploy-config.js';
import {
  ARTIFACT_PROTOCOL,
  base64Length,
  BUILDER_PROTOCOL,
  CONTENT_MARKER,
  encodeFileOpen,
  encodeHeader,
  FILES_MARKER,
  MODE_EXECUTABLE,
  MODE_FILE,
  type ArtifactDocument,
  type ArtifactFileEntry,
  type ArtifactHeader,
} from './document.js';
import { MemorySink, type ContentSink } from './content-sink.js';
import type { ArtifactLimits } from './limits.js';
import { compareUtf8, forbiddenPathReason, isIncluded, pathShapeViolation } from './path-rules.js';
import { artifactRoots } from './walk-included.js';

/** A verified file with its content. */
export interface DecodedFile extends ArtifactFileEntry {
  content: Buffer;
}

/** What the parser hands back once the whole document has been verified (contents went to the sink). */
export interface ParsedDocument {
  document: ArtifactDocument;
  config: DeployConfig;
  files: ArtifactFileEntry[];
  totalBytes: number;
}

// Bounds on the parts that are buffered whole: the header (config is small) and one entry's metadata.
const MAX_HEADER_BYTES = 1024 * 1024;
const MAX_ENTRY_META_BYTES = 4096;
const filesMarker = Buffer.from(FILES_MARKER);
const contentMarker = Buffer.from(CONTENT_MARKER);
const QUOTE = 0x22;
const sha256Hex = /^[0-9a-f]{64}$/;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFLNK = 0o120000;

type State = 'header' | 'entry' | 'content' | 'close' | 'end';

const malformed = (message: string): SvcError => new SvcError('SVC_ARTIFACT_MALFORMED', message);

/** Incremental verifier of one document; call push() per decompressed chunk, then finish(). The first violation throws. */
export class DocumentParser {
  private state: State = 'header';
  private pending: Buffer = Buffer.alloc(0);
  private scanFrom = 0;
  private header: ArtifactHeader | undefined;
  private roots: string[] = [];
  private readonly files: ArtifactFileEntry[] = [];
  private readonly paths = new Set<string>();
  private aggregate = 0;
  private current: ArtifactFileEntry | undefined;
  /** Content characters of the current file seen so far, and how many there must be. */
  private contentGot = 0;
  private contentWant = 0;
  /** Base64 characters short of a whole 4-character quantum, carried to the next chunk. */
  private carry = '';
  private decodedBytes = 0;
  private contentHash: Hash | undefined;

  /** `sink` receives every file's decoded content (default: kept in memory). */
  constructor(
    private readonly limits: ArtifactLimits,
    readonly sink: ContentSink = new MemorySink(),
  ) {}

  /** Feed the next decompressed bytes. */
  push(chunk: Buffer): void {
    let data = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = Buffer.alloc(0);
    let pos = 0;
    while (pos < data.length) {
      if (this.state === 'content') {
        pos = this.takeContent(data, pos);
        continue;
      }
      if (this.state === 'header') {
        if (data[0] !== 0x7b) throw malformed('The document is not a JSON object');
        const at = data.indexOf(filesMarker, this.scanFrom);
        if (at < 0) {
          if (data.length > MAX_HEADER_BYTES) throw malformed(`No file list within the first ${MAX_HEADER_BYTES} bytes of the document`);
          this.scanFrom = Math.max(0, data.length - filesMarker.length + 1);
          this.pending = data;
          return;
        }
        const end = at + filesMarker.length;
        this.readHeader(data.subarray(0, end));
        data = data.subarray(end);
        pos = 0;
        this.scanFrom = 0;
        this.state = 'entry';
        continue;
      }
      if (this.state === 'entry') {
        if (data.length - pos < 2) break;
        if (data[pos] === 0x5d && data[pos + 1] === 0x7d) {
          pos += 2;
          this.state = 'end';
          continue;
        }
        const at = data.indexOf(contentMarker, pos);
        if (at < 0) {
          if (data.length - pos > MAX_ENTRY_META_BYTES) throw malformed('A file entry is missing its content or its metadata is too long');
          break;
        }
        const end = at + contentMarker.length;
        this.readEntry(data.subarray(pos, end));
        pos = end;
        continue;
      }
      if (this.state === 'close') {
        if (data[pos] !== QUOTE) throw new SvcError('SVC_ARTIFACT_SIZE_MISMATCH', `The content of ${this.current?.path} is longer than its declared size`);
        if (data.length - pos < 2) break;
        if (data[pos + 1] !== 0x7d) throw malformed(`The entry of ${this.current?.path} is not closed after its content`);
        pos += 2;
        this.state = 'entry';
        continue;
      }
      throw malformed('Unexpected data after the end of the document');
    }
    if (pos < data.length) this.pending = Buffer.from(data.subarray(pos));
  }

  /** Check the document ended where it should and return everything verified. */
  finish(): ParsedDocument {
    if (this.state === 'header' && this.pending.length > 0) {
      // A complete JSON document without the canonical file-list separator is valid but not canonical.
      try {
        JSON.parse(this.pending.toString('utf8'));
      } catch {
        throw malformed('The document is not valid JSON');
      }
      throw new SvcError('SVC_ARTIFACT_NOT_CANONICAL', 'The document is JSON but not in canonical form');
    }
    if (this.state !== 'end' || this.pending.length > 0) throw malformed('The document is truncated');
    const header = this.header!;
    if (!this.files.some((f) => f.path === header.config.entry))
      throw new SvcError('SVC_ARTIFACT_ENTRY_MISSING', `The entry ${header.config.entry} is not in the artifact`);
    const entries = this.files.map(({ path, size, mode, sha256 }) => ({ path, size, mode, sha256 }));
    return { document: { ...header, files: entries }, config: header.config, files: this.files, totalBytes: this.aggregate };
  }

  private readHeader(bytes: Buffer): void {
    let raw: unknown;
    try {
      raw = JSON.parse(`${bytes.subarray(0, bytes.length - filesMarker.length).toString('utf8')}}`);
    } catch {
      throw malformed('The document header is not valid JSON');
    }
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw malformed('The document header is not an object');
    const obj = raw as Record<string, unknown>;
    if (obj.protocol !== ARTIFACT_PROTOCOL)
      throw new SvcError('SVC_ARTIFACT_UNSUPPORTED_PROTOCOL', `Protocol ${JSON.stringify(obj.protocol)} is not ${ARTIFACT_PROTOCOL}`);
    if (obj.builder !== BUILDER_PROTOCOL)
      throw new SvcError('SVC_ARTIFACT_UNSUPPORTED_PROTOCOL', `Builder protocol ${JSON.stringify(obj.builder)} is not ${BUILDER_PROTOCOL}`);
    const keys = Object.keys(obj).sort().join(',');
    if (keys !== 'builder,config,protocol,runtime,service')
      throw malformed(`The document header has fields ${keys}; expected protocol, builder, service, runtime, config`);
    const service = nameVersion(obj.service, 'service');
    const runtime = nameVersion(obj.runtime, 'runtime');
    const config = parseDeployConfig(obj.config);
    const header: ArtifactHeader = { protocol: ARTIFACT_PROTOCOL, builder: BUILDER_PROTOCOL, service, runtime, config };
    if (!Buffer.from(encodeHeader(header), 'utf8').equals(bytes)) {
      throw new SvcError('SVC_ARTIFACT_NOT_CANONICAL', 'The document header is not canonical (field order, whitespace or configuration normalization)');
    }
    this.header = header;
    this.roots = artifactRoots(config);
  }

  private readEntry(bytes: Buffer): void {
    const first = this.files.length === 0 && this.current === undefined;
    if (!first && bytes[0] !== 0x2c) throw malformed('File entries must be separated by ","');
    const open = first ? bytes : bytes.subarray(1);
    let raw: unknown;
    try {
      raw = JSON.parse(`${open.subarray(0, open.length - contentMarker.length).toString('utf8')}}`);
    } catch {
      throw malformed('A file entry is not valid JSON');
    }
    const entry = raw as Record<string, unknown>;
    if (typeof entry !== 'object' || entry === null || Object.keys(entry).sort().join(',') !== 'mode,path,sha256,size')
      throw malformed('A file entry must have exactly path, size, mode, sha256 and content');
    const { path, size, mode, sha256 } = entry;
    if (typeof path !== 'string' || typeof sha256 !== 'string' || !Number.isSafeInteger(size) || !Number.isSafeInteger(mode))
      throw malformed('A file entry has fields of the wrong type');
    if (this.files.length + 1 > this.limits.maxFiles)
      throw new SvcError('SVC_ARTIFACT_TOO_MANY_FILES', `The artifact has more than ${this.limits.maxFiles} files`);
    this.checkPath(path);
    checkMode(path, mode as number);
    if ((size as number) < 0) throw malformed(`${path} has a negative size`);
    if ((size as number) > this.limits.maxFileBytes)
      throw new SvcError('SVC_ARTIFACT_FILE_TOO_LARGE', `${path} is ${size as number} bytes; the limit is ${this.limits.maxFileBytes}`);
    if (this.aggregate + (size as number) > this.limits.maxAggregateBytes)
      throw new SvcError('SVC_ARTIFACT_AGGREGATE_TOO_LARGE', `The files exceed ${this.limits.maxAggregateBytes} bytes together`);
    if (!sha256Hex.test(sha256)) throw malformed(`${path} has a malformed sha256 (64 lowercase hex digits expected)`);
    const current: ArtifactFileEntry = { path, size: size as number, mode: mode as number, sha256 };
    if (!Buffer.from(encodeFileOpen(current), 'utf8').equals(open)) throw new SvcError('SVC_ARTIFACT_NOT_CANONICAL', `The entry of ${path} is not canonical`);
    this.current = current;
    this.aggregate += current.size;
    this.contentGot = 0;
    this.contentWant = base64Length(current.size);
    this.carry = '';
    this.decodedBytes = 0;
    this.contentHash = createHash('sha256');
    this.sink.begin(current);
    this.state = 'content';
  }

  private checkPath(path: string): void {
    const shape = pathShapeViolation(path);
    if (shape) throw new SvcError(shape.code, `${JSON.stringify(path)} ${shape.rule}`);
    const forbidden = forbiddenPathReason(path);
    if (forbidden) throw new SvcError('SVC_ARTIFACT_FORBIDDEN_FILE', `${path}: ${forbidden}`);
    if (!isIncluded(path, this.roots)) throw new SvcError('SVC_ARTIFACT_PATH_NOT_INCLUDED', `${path} is outside the included paths (${this.roots.join(', ')})`);
    // A file may not also be a directory of a later file ("a" and "a/b"); a parent always sorts first.
    for (let slash = path.indexOf('/'); slash >= 0; slash = path.indexOf('/', slash + 1)) {
      if (this.paths.has(path.slice(0, slash))) throw new SvcError('SVC_ARTIFACT_DUPLICATE_PATH', `${path.slice(0, slash)} is both a file and a directory`);
    }
    const previous = this.files.at(-1)?.path;
    if (previous !== undefined) {
      const order = compareUtf8(previous, path);
      if (order === 0) throw new SvcError('SVC_ARTIFACT_DUPLICATE_PATH', `${path} appears twice`);
      if (order > 0) throw new SvcError('SVC_ARTIFACT_NOT_CANONICAL', `Files are not sorted by path (${path} after ${previous})`);
    }
  }

  private takeContent(data: Buffer, pos: number): number {
    const take = Math.min(this.contentWant - this.contentGot, data.length - pos);
    const slice = data.subarray(pos, pos + take);
    if (slice.indexOf(QUOTE) >= 0) throw new SvcError('SVC_ARTIFACT_SIZE_MISMATCH', `The content of ${this.current!.path} is shorter than its declared size`);
    this.contentGot += take;
    this.decodeContent(slice);
    if (this.contentGot === this.contentWant) this.finishFile();
    return pos + take;
  }

  /**
   * Decode the whole base64 quanta seen so far. Each quantum run is re-encoded and compared, which is
   * the canonical check of the whole content (standard alphabet, padding only at the very end, zero
   * pad bits) done piecewise: base64 quanta decode independently of one another.
   */
  private decodeContent(slice: Buffer): void {
    const entry = this.current!;
    const text = this.carry + slice.toString('latin1');
    const whole = text.length - (text.length % 4);
    this.carry = text.slice(whole);
    if (whole === 0) return;
    const quanta = text.slice(0, whole);
    const bytes = Buffer.from(quanta, 'base64');
    if (this.decodedBytes + bytes.length > entry.size)
      throw new SvcError('SVC_ARTIFACT_SIZE_MISMATCH', `The content of ${entry.path} decodes to more than ${entry.size} bytes`);
    if (bytes.toString('base64') !== quanta)
      throw new SvcError('SVC_ARTIFACT_NOT_CANONICAL', `The content of ${entry.path} is not canonical base64 (standard alphabet, padded)`);
    this.decodedBytes += bytes.length;
    this.contentHash!.update(bytes);
    this.sink.write(bytes);
  }

  private finishFile(): void {
    const entry = this.current!;
    // contentWant is a multiple of 4, so every character was decoded by now.
    if (this.decodedBytes !== entry.size)
      throw new SvcError('SVC_ARTIFACT_SIZE_MISMATCH', `The content of ${entry.path} decodes to ${this.decodedBytes} bytes, not ${entry.size}`);
    if (this.contentHash!.digest('hex') !== entry.sha256) throw new SvcError('SVC_ARTIFACT_FILE_DIGEST_MISMATCH', `${entry.path} does not match its sha256`);
    this.contentHash = undefined;
    this.sink.end(entry);
    this.files.push(entry);
    this.paths.add(entry.path);
    this.state = 'close';
  }
}

function nameVersion(value: unknown, field: string): { name: string; version: string } {
  const ok = typeof value === 'object' && value !== null && Object.keys(value).sort().join(',') === 'name,version';
  const { name, version } = (value ?? {}) as { name?: unknown; version?: unknown };
  if (!ok || typeof name !== 'string' || typeof version !== 'string' || name.length === 0 || name.length > 64 || version.length === 0 || version.length > 64) {
    throw malformed(`The document ${field} must be { name, version } strings of 1 to 64 characters`);
  }
  return { name, version };
}

/** Classify a declared mode: symlink and special types get their own codes, other modes are BAD_MODE. */
function checkMode(path: string, mode: number): void {
  const type = mode & S_IFMT;
  if (type === S_IFLNK) throw new SvcError('SVC_ARTIFACT_SYMLINK', `${path} is declared as a symbolic link`);
  if (type !== S_IFREG) throw new SvcError('SVC_ARTIFACT_SPECIAL_FILE', `${path} is declared as a special file or directory (mode 0${mode.toString(8)})`);
  if (mode !== MODE_FILE && mode !== MODE_EXECUTABLE)
    throw new SvcError('SVC_ARTIFACT_BAD_MODE', `${path} has mode 0${mode.toString(8)}; only 0100644 and 0100755 are allowed`);
}
