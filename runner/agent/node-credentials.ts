// The persisted node credentials file: enroll once with the registration
// token, write the credential atomically with mode 0600, and afterwards start from the file alone.
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { atomicWriteFile } from '../../src/core/atomic-write.js';
import { SvcError } from '../../src/core/errors.js';
import { enrollResponseSchema, nodeCredentialsFileSchema, nodeSecretSchema, type NodeCredentialsFile } from '../../src/nodes/contract.js';
import { createControlHttp, readContractJson, readErrorCode, type ControlHttpOptions } from './control-http.js';

/** What enrollment sends besides the token (the enroll request of the node contract). */
export interface NodeEnrollment {
  nodeId: string;
  region: string;
  capacity: number;
  concurrency: number;
  labels: Record<string, string>;
}

/** Compare control URLs the way the file records them (normalized href). */
const sameUrl = (a: string, b: string): boolean => new URL(a).href === new URL(b).href;

/**
 * Read and validate the credentials file; null when it does not exist. Refuses a file readable by
 * group or others, one that is not the node contract's shape, or one for another node or control plane.
 */
export async function readNodeCredentials(path: string, expected: { controlUrl: string; nodeId: string }): Promise<NodeCredentialsFile | null> {
  let text: string;
  let mode: number;
  try {
    mode = (await stat(path)).mode;
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new SvcError('SVC_RUNNER_CONFIG', `SVC_RUNNER_CREDENTIALS (${path}) cannot be read: ${(error as Error).message}`);
  }
  if ((mode & 0o077) !== 0) throw new SvcError('SVC_RUNNER_CONFIG', `SVC_RUNNER_CREDENTIALS (${path}) is readable by group or others; run chmod 600 on it`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SvcError('SVC_RUNNER_CONFIG', `SVC_RUNNER_CREDENTIALS (${path}) is not valid JSON`);
  }
  const parsed = nodeCredentialsFileSchema.safeParse(json);
  if (!parsed.success) throw new SvcError('SVC_RUNNER_CONFIG', `SVC_RUNNER_CREDENTIALS (${path}) is not a version 1 node credentials file`);
  if (parsed.data.nodeId !== expected.nodeId)
    throw new SvcError('SVC_RUNNER_CONFIG', `SVC_RUNNER_CREDENTIALS belongs to node ${parsed.data.nodeId}, not SVC_RUNNER_NODE_ID ${expected.nodeId}`);
  if (!sameUrl(parsed.data.controlUrl, expected.controlUrl))
    throw new SvcError('SVC_RUNNER_CONFIG', `SVC_RUNNER_CREDENTIALS was issued by ${parsed.data.controlUrl}, not SVC_CONTROL_URL`);
  return parsed.data;
}

/** Write the credentials file atomically with mode 0600. */
export async function writeNodeCredentials(path: string, file: NodeCredentialsFile): Promise<void> {
  await atomicWriteFile(path, `${JSON.stringify(nodeCredentialsFileSchema.parse(file), null, 2)}\n`, { mode: 0o600, mkdirs: true });
}

/** Enroll once with a registration token (never retried after it was sent: the token is single-use). */
export async function enrollNode(http: ControlHttpOptions, registrationToken: string, enrollment: NodeEnrollment): Promise<string> {
  const client = createControlHttp({ ...http, retryAttempts: 1 });
  const response = await client.send({ method: 'POST', path: '/api/nodes/enroll', bearer: registrationToken, retry: false, json: enrollment });
  if (response.status !== 200 && response.status !== 201) {
    const code = await readErrorCode(response);
    throw new SvcError('SVC_RUNNER_ENROLL_FAILED', `Enrollment was refused (${response.status}${code ? ` ${code}` : ''})`, {
      details: { status: response.status, code },
    });
  }
  const body = await readContractJson(response, enrollResponseSchema, 'enroll');
  if (body.nodeId !== enrollment.nodeId) throw new SvcError('SVC_RUNNER_CONTROL_REJECTED', 'The control plane enrolled a different node id');
  return body.credential;
}

export interface EnsureCredentialsOptions {
  http: ControlHttpOptions;
  credentialsPath: string;
  registrationToken: string | undefined;
  enrollment: NodeEnrollment;
  now?: () => Date;
  log?: (line: string) => void;
}

/** The node credential: from the file when present, otherwise by enrolling once and persisting it. */
export async function ensureNodeCredentials(options: EnsureCredentialsOptions): Promise<NodeCredentialsFile> {
  const path = resolve(options.credentialsPath);
  const existing = await readNodeCredentials(path, { controlUrl: options.http.controlUrl, nodeId: options.enrollment.nodeId });
  if (existing) {
    if (options.registrationToken) options.log?.('svc-runner: node is enrolled; SVC_RUNNER_REGISTRATION_TOKEN is not needed and should be removed');
    return existing;
  }
  if (!options.registrationToken) {
    throw new SvcError(
      'SVC_RUNNER_CONFIG',
      `No node credentials at ${path} and no SVC_RUNNER_REGISTRATION_TOKEN to enroll with; ask a platform admin for a registration token`,
    );
  }
  if (!nodeSecretSchema.safeParse(options.registrationToken).success)
    throw new SvcError('SVC_RUNNER_CONFIG', 'SVC_RUNNER_REGISTRATION_TOKEN must be 32 to 512 characters');
  const credential = await enrollNode(options.http, options.registrationToken, options.enrollment);
  const file: NodeCredentialsFile = {
    version: 1,
    controlUrl: new URL(options.http.controlUrl).href,
    nodeId: options.enrollment.nodeId,
    credential,
    enrolledAt: (options.now?.() ?? new Date()).toISOString(),
  };
  await writeNodeCredentials(path, file);
  options.log?.(
    `svc-runner: enrolled node ${file.nodeId}; credentials written to ${path} (mode 0600). Remove SVC_RUNNER_REGISTRATION_TOKEN from the environment now: it is single-use.`,
  );
  return file;
}
