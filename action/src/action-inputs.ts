// The Action's inputs and the GITHUB_* context it needs, validated with zod at the edge. Inputs are
// read through @actions/core's getInput (passed in as `input`), the context from the environment.
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { SvcError } from '../../src/core/errors.js';
import { COMMIT_SHA_PATTERN } from '../../src/releases/contract.js';
import type { ActionEnv, ReadInput } from './workflow-commands.js';

/** Everything run-action needs, resolved from inputs and the runner's environment. */
export interface ActionSettings {
  /** Control plane origin (no trailing slash). */
  server: string;
  project: string;
  /** Absolute path of the app directory. */
  appDir: string;
  /** Project-scoped token; null = GitHub Actions OIDC. */
  token: string | null;
  /** `aud` requested for the OIDC token (default: the server origin). */
  audience: string;
  build: boolean;
  maxAttempts: number;
  requestTimeoutMs: number;
  /** First retry delay; doubles per attempt (capped). */
  retryBaseMs: number;
  /** The commit uploaded: GITHUB_SHA, or a pull request's head commit (never GitHub's merge commit). */
  sha: string;
  /** The pull request whose preview this run deploys (a `pull_request` workflow), or null for production. */
  preview: number | null;
  repositoryId: string;
  repository: string | null;
  ref: string | null;
  /** OIDC token request endpoint (present only with `permissions: id-token: write`). */
  idTokenRequest: { url: string; token: string } | null;
}

const boolean = z.enum(['true', 'false', 'True', 'False', 'TRUE', 'FALSE']).transform((v) => v.toLowerCase() === 'true');
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const schema = z.object({
  server: z
    .url({ protocol: /^https?$/ })
    .transform((value) => new URL(value))
    .refine((u) => !u.search && !u.hash && !u.username && !u.password, 'must be a plain origin such as https://svc.example.com')
    .transform((u) => `${u.origin}${u.pathname.replace(/\/+$/, '')}`),
  project: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z0-9_-]+$/, 'must be a project id or slug'),
  workingDirectory: z.string().min(1).max(4096),
  token: z.string().max(500).optional(),
  audience: z.string().min(1).max(500).optional(),
  build: boolean,
  maxAttempts: int(1, 10),
  requestTimeoutSeconds: int(10, 6 * 3600),
  retryBaseMs: int(0, 60_000),
  sha: z.string().regex(COMMIT_SHA_PATTERN, 'GITHUB_SHA must be a full commit SHA'),
  repositoryId: z.string().regex(/^[1-9][0-9]{0,15}$/, 'GITHUB_REPOSITORY_ID must be the numeric repository id'),
});

// The fields of a pull_request event payload (GITHUB_EVENT_PATH) a preview upload needs.
const pullRequestEventSchema = z.object({
  pull_request: z.object({
    number: z.number().int().positive(),
    head: z.object({ sha: z.string().regex(COMMIT_SHA_PATTERN) }),
  }),
});

/**
 * In a `pull_request` workflow, the pull request whose preview is deployed and its head commit (the check,
 * the comment and the preview follow the head; GITHUB_SHA there is GitHub's merge commit). Null otherwise.
 */
export function pullRequestOf(env: ActionEnv, readEvent: () => unknown): { number: number; headSha: string } | null {
  const name = env.GITHUB_EVENT_NAME;
  if (name === 'pull_request_target') {
    // It runs with the base repository's credentials for code the pull request brings: never deployed.
    throw new SvcError('SVC_ACTION_INPUT_INVALID', 'GITHUB_EVENT_NAME: pull_request_target is not supported; deploy previews from a `pull_request` workflow.');
  }
  if (name !== 'pull_request') return null;
  let event: unknown;
  try {
    event = readEvent();
  } catch (error) {
    throw new SvcError('SVC_ACTION_INPUT_INVALID', `GITHUB_EVENT_PATH: the pull request event could not be read (${(error as Error).message}).`);
  }
  const parsed = pullRequestEventSchema.safeParse(event);
  if (!parsed.success) throw new SvcError('SVC_ACTION_INPUT_INVALID', 'GITHUB_EVENT_PATH: not a pull_request event with a number and a head commit.');
  return { number: parsed.data.pull_request.number, headSha: parsed.data.pull_request.head.sha };
}

/** Read and validate inputs and context; throws SVC_ACTION_INPUT_INVALID naming the input. */
export function readActionSettings(input: ReadInput, env: ActionEnv, cwd: string, readEvent: () => unknown = () => null): ActionSettings {
  const pull = pullRequestOf(env, readEvent);
  const value = (name: string, fallback?: string) => input(name) || fallback;
  const required = (name: string) => {
    try {
      return input(name, { required: true });
    } catch {
      throw new SvcError('SVC_ACTION_INPUT_INVALID', `input ${name}: required and not supplied`);
    }
  };
  const raw = {
    server: required('server'),
    project: required('project'),
    workingDirectory: value('working-directory', '.'),
    token: value('token'),
    audience: value('audience'),
    build: value('build', 'true'),
    maxAttempts: value('max-attempts', '5'),
    requestTimeoutSeconds: value('request-timeout-seconds', '1800'),
    retryBaseMs: value('retry-base-ms', '2000'),
    sha: pull?.headSha ?? env.GITHUB_SHA,
    repositoryId: env.GITHUB_REPOSITORY_ID,
  };
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = String(issue.path[0] ?? '');
    const name =
      key === 'sha' ? 'GITHUB_SHA' : key === 'repositoryId' ? 'GITHUB_REPOSITORY_ID' : `input ${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    throw new SvcError('SVC_ACTION_INPUT_INVALID', `${name}: ${issue.message}`);
  }
  const data = parsed.data;
  const workspace = env.GITHUB_WORKSPACE || cwd;
  const requestUrl = env.ACTIONS_ID_TOKEN_REQUEST_URL;
  const requestToken = env.ACTIONS_ID_TOKEN_REQUEST_TOKEN;
  return {
    server: data.server,
    project: data.project,
    appDir: isAbsolute(data.workingDirectory) ? data.workingDirectory : resolve(workspace, data.workingDirectory),
    token: data.token ?? null,
    audience: data.audience ?? new URL(data.server).origin,
    build: data.build,
    maxAttempts: data.maxAttempts,
    requestTimeoutMs: data.requestTimeoutSeconds * 1000,
    retryBaseMs: data.retryBaseMs,
    sha: data.sha,
    preview: pull?.number ?? null,
    repositoryId: data.repositoryId,
    repository: env.GITHUB_REPOSITORY || null,
    ref: env.GITHUB_REF || null,
    idTokenRequest: requestUrl && requestToken ? { url: requestUrl, token: requestToken } : null,
  };
}
