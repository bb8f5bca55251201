// A local stand-in for GitHub's REST API (what svc uses of it), speaking the real protocol: every
// request is validated against GitHub's OpenAPI description first (an invalid one is answered 422 and
// recorded in `invalid`), app JWTs are verified with the app's public key, installation tokens are
// minted and required, and state is kept (check runs, deployments, comments, reactions, permissions).
// `fetch` serves it in-process (unit tests); `listen()` serves it over real HTTP on port 0 (e2e).
import { createServer, type Server } from 'node:http';
import { randomBytes, type KeyObject } from 'node:crypto';
import { jwtVerify } from 'jose';
import { githubOpenApi, OpenApiError } from './openapi-validator.js';

type Json = Record<string, unknown>;

export interface FakeCheckRun {
  id: number;
  repo: string;
  name: string;
  head_sha: string;
  status: string;
  conclusion: string | null;
  external_id: string | null;
  details_url: string | null;
  output: { title?: string; summary?: string } | null;
  /** Every body sent for this run (create, then each update), in order. */
  history: Json[];
}

export interface FakeDeployment {
  id: number;
  repo: string;
  ref: string;
  environment: string;
  body: Json;
  statuses: Json[];
}

export interface FakeComment {
  id: number;
  repo: string;
  issue: number;
  body: string;
  /** The app that posted it (installation token), or null for a person's comment. */
  appId: number | null;
  user: string;
  /** Every body it had, oldest first (create, then each edit). */
  history: string[];
}

export interface FakeRequest {
  method: string;
  path: string;
  operationId: string | null;
  body: unknown;
  status: number;
}

export interface FakeGithubOptions {
  appId: number;
  publicKey: KeyObject;
}

export class FakeGithub {
  readonly installations = new Map<number, { account: string; repos: Map<string, number>; suspended: boolean }>();
  readonly permissions = new Map<string, string>();
  readonly pulls = new Map<string, { baseRef: string }>();
  readonly checkRuns: FakeCheckRun[] = [];
  readonly deployments: FakeDeployment[] = [];
  readonly comments: FakeComment[] = [];
  readonly reactions: { repo: string; commentId: number; content: string }[] = [];
  readonly requests: FakeRequest[] = [];
  readonly invalid: string[] = [];
  readonly tokensIssued: { installationId: number; token: string }[] = [];
  /** Make the next N requests fail with 502 (retry tests). */
  failNext = 0;
  /** Make the next N requests of one operation (operation id → N) fail with 502. */
  readonly failOperation = new Map<string, number>();
  private readonly tokens = new Map<string, number>();
  private nextId = 1000;
  private server: Server | null = null;
  origin = 'http://fake-github.invalid';

  constructor(private readonly options: FakeGithubOptions) {}

  /** Install the app on repositories (`owner/name` → repository id). */
  install(installationId: number, account: string, repos: Record<string, number>): void {
    this.installations.set(installationId, { account, repos: new Map(Object.entries(repos)), suspended: false });
  }

  /** Set a collaborator's permission (admin, write, read, none). */
  setPermission(repo: string, username: string, permission: string): void {
    this.permissions.set(`${repo}:${username}`, permission);
  }

  /** API base for svc's GHE_* settings / Octokit baseUrl. */
  get baseUrl(): string {
    return `${this.origin}/api/v3`;
  }

  /** An in-process fetch that serves this fake (for Octokit's `request.fetch`). */
  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : new Request(input, init);
    return this.handle(request);
  };

  /** Serve over HTTP on 127.0.0.1:0; `origin` becomes the listening address. */
  async listen(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const request = new Request(`${this.origin}${req.url}`, {
          method: req.method,
          headers: req.headers as Record<string, string>,
          ...(body.length ? { body } : {}),
        });
        void this.handle(request).then(async (response) => {
          res.writeHead(response.status, Object.fromEntries(response.headers));
          res.end(Buffer.from(await response.arrayBuffer()));
        });
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const address = this.server.address() as { port: number };
    this.origin = `http://127.0.0.1:${address.port}`;
    return this.origin;
  }

  async close(): Promise<void> {
    if (this.server) await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.server = null;
  }

  /** A person's comment on an issue or pull request (not posted by the app). */
  addUserComment(repo: string, issue: number, body: string, user = 'octocat'): FakeComment {
    const comment: FakeComment = { id: this.nextId++, repo, issue, body, appId: null, user, history: [body] };
    this.comments.push(comment);
    return comment;
  }

  /** Deployments of an environment, oldest first. */
  deploymentsIn(environment: string): FakeDeployment[] {
    return this.deployments.filter((d) => d.environment === environment);
  }

  private commentJson(c: FakeComment): Json {
    return {
      id: c.id,
      body: c.body,
      html_url: `https://github.com/${c.repo}/pull/${c.issue}#issuecomment-${c.id}`,
      user: { login: c.user, type: c.appId === null ? 'User' : 'Bot' },
      performed_via_github_app: c.appId === null ? null : { id: c.appId, slug: 'svc' },
    };
  }

  /** Check runs of a commit (optionally one name), oldest first. */
  runs(sha: string, name?: string): FakeCheckRun[] {
    return this.checkRuns.filter((r) => r.head_sha === sha && (name === undefined || r.name === name));
  }

  async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname.replace(/^\/api\/v3/, '');
    const text = request.method === 'GET' || request.method === 'HEAD' ? '' : await request.text();
    let body: unknown;
    try {
      body = text ? (JSON.parse(text) as unknown) : undefined;
    } catch {
      return this.reply(request.method, path, null, body, 400, { message: 'Problems parsing JSON' });
    }
    let validated;
    try {
      validated = githubOpenApi().validate(request.method, path, url.searchParams, body);
    } catch (error) {
      if (!(error instanceof OpenApiError)) throw error;
      this.invalid.push(error.message);
      return this.reply(request.method, path, null, body, 422, { message: 'Validation Failed', errors: [error.message] });
    }
    const failOp = this.failOperation.get(validated.operationId) ?? 0;
    if (failOp > 0) this.failOperation.set(validated.operationId, failOp - 1);
    if (this.failNext > 0 || failOp > 0) {
      if (failOp === 0) this.failNext--;
      return this.reply(request.method, path, validated.operationId, body, 502, { message: 'Bad Gateway' });
    }
    try {
      const [status, data] = await this.route(validated.operationId, validated.params, request.headers, body as Json, url.searchParams);
      return this.reply(request.method, path, validated.operationId, body, status, data);
    } catch (error) {
      const status = (error as { status?: number }).status ?? 500;
      return this.reply(request.method, path, validated.operationId, body, status, { message: (error as Error).message });
    }
  }

  private reply(method: string, path: string, operationId: string | null, body: unknown, status: number, data: unknown): Response {
    this.requests.push({ method, path, operationId, body, status });
    return new Response(status === 204 ? null : JSON.stringify(data), { status, headers: { 'content-type': 'application/json; charset=utf-8' } });
  }

  private async appAuth(headers: Headers): Promise<void> {
    const auth = headers.get('authorization') ?? '';
    const jwt = /^bearer (.+)$/i.exec(auth)?.[1];
    if (!jwt) throw httpError(401, 'A JSON web token could not be decoded');
    try {
      const { payload } = await jwtVerify(jwt, this.options.publicKey, { algorithms: ['RS256'] });
      if (String(payload.iss) !== String(this.options.appId)) throw new Error('wrong issuer');
      if (!payload.exp || !payload.iat || payload.exp - payload.iat > 660) throw new Error('expiry too far');
    } catch (error) {
      throw httpError(401, `'Issuer' claim or signature is invalid: ${(error as Error).message}`);
    }
  }

  private installationFor(headers: Headers, repo: string): number {
    const token = /^token (.+)$/i.exec(headers.get('authorization') ?? '')?.[1];
    const installationId = token ? this.tokens.get(token) : undefined;
    if (installationId === undefined) throw httpError(401, 'Bad credentials');
    const installation = this.installations.get(installationId);
    if (!installation || installation.suspended || !installation.repos.has(repo)) throw httpError(404, 'Not Found');
    return installationId;
  }

  private async route(op: string, p: Record<string, string>, headers: Headers, body: Json, query: URLSearchParams): Promise<[number, unknown]> {
    const repo = `${p.owner}/${p.repo}`;
    const id = () => this.nextId++;
    switch (op) {
      case 'apps/create-installation-access-token': {
        await this.appAuth(headers);
        const installationId = Number(p.installation_id);
        if (!this.installations.has(installationId)) throw httpError(404, 'Not Found');
        const token = `ghs_${randomBytes(18).toString('hex')}`;
        this.tokens.set(token, installationId);
        this.tokensIssued.push({ installationId, token });
        return [201, { token, expires_at: new Date(Date.now() + 3_600_000).toISOString(), permissions: { checks: 'write' }, repository_selection: 'selected' }];
      }
      case 'apps/get-repo-installation': {
        await this.appAuth(headers);
        for (const [installationId, inst] of this.installations) {
          if (inst.repos.has(repo))
            return [
              200,
              {
                id: installationId,
                account: { login: inst.account, type: 'Organization' },
                repository_selection: 'selected',
                suspended_at: inst.suspended ? new Date().toISOString() : null,
              },
            ];
        }
        throw httpError(404, 'Not Found');
      }
      case 'repos/get': {
        const installationId = this.installationFor(headers, repo);
        return [200, { id: this.installations.get(installationId)!.repos.get(repo), full_name: repo, name: p.repo, owner: { login: p.owner } }];
      }
      case 'checks/create': {
        this.installationFor(headers, repo);
        const run: FakeCheckRun = {
          id: id(),
          repo,
          name: body.name as string,
          head_sha: body.head_sha as string,
          status: (body.status as string) ?? 'queued',
          conclusion: (body.conclusion as string) ?? null,
          external_id: (body.external_id as string) ?? null,
          details_url: (body.details_url as string) ?? null,
          output: (body.output as FakeCheckRun['output']) ?? null,
          history: [body],
        };
        if (run.conclusion) run.status = 'completed';
        this.checkRuns.push(run);
        return [201, { ...run, history: undefined }];
      }
      case 'checks/update': {
        this.installationFor(headers, repo);
        const run = this.checkRuns.find((r) => r.id === Number(p.check_run_id) && r.repo === repo);
        if (!run) throw httpError(404, 'Not Found');
        if (body.status) run.status = body.status as string;
        if (body.conclusion) {
          run.conclusion = body.conclusion as string;
          run.status = 'completed';
        }
        if (body.output) run.output = body.output as FakeCheckRun['output'];
        if (body.details_url) run.details_url = body.details_url as string;
        run.history.push(body);
        return [200, { ...run, history: undefined }];
      }
      case 'checks/list-for-ref': {
        this.installationFor(headers, repo);
        const runs = this.checkRuns.filter((r) => r.repo === repo && r.head_sha === p.ref && (!query.get('check_name') || r.name === query.get('check_name')));
        return [200, { total_count: runs.length, check_runs: runs.map((r) => ({ ...r, history: undefined })) }];
      }
      case 'repos/create-deployment': {
        this.installationFor(headers, repo);
        const deployment: FakeDeployment = {
          id: id(),
          repo,
          ref: body.ref as string,
          environment: (body.environment as string) ?? 'production',
          body,
          statuses: [],
        };
        this.deployments.push(deployment);
        return [201, { id: deployment.id, ref: deployment.ref, environment: deployment.environment, sha: deployment.ref }];
      }
      case 'repos/create-deployment-status': {
        this.installationFor(headers, repo);
        const deployment = this.deployments.find((d) => d.id === Number(p.deployment_id) && d.repo === repo);
        if (!deployment) throw httpError(404, 'Not Found');
        deployment.statuses.push(body);
        return [201, { id: id(), state: body.state, environment_url: body.environment_url ?? '' }];
      }
      case 'issues/create-comment': {
        this.installationFor(headers, repo);
        const comment: FakeComment = {
          id: id(),
          repo,
          issue: Number(p.issue_number),
          body: body.body as string,
          appId: this.options.appId,
          user: 'svc[bot]',
          history: [body.body as string],
        };
        this.comments.push(comment);
        return [201, this.commentJson(comment)];
      }
      case 'issues/update-comment': {
        this.installationFor(headers, repo);
        const comment = this.comments.find((c) => c.id === Number(p.comment_id) && c.repo === repo);
        if (!comment) throw httpError(404, 'Not Found');
        comment.body = body.body as string;
        comment.history.push(comment.body);
        return [200, this.commentJson(comment)];
      }
      case 'issues/list-comments': {
        this.installationFor(headers, repo);
        const perPage = Number(query.get('per_page') ?? 30);
        const list = this.comments.filter((c) => c.repo === repo && c.issue === Number(p.issue_number)).slice(0, perPage);
        return [200, list.map((c) => this.commentJson(c))];
      }
      case 'issues/delete-comment': {
        this.installationFor(headers, repo);
        const index = this.comments.findIndex((c) => c.id === Number(p.comment_id) && c.repo === repo);
        if (index < 0) throw httpError(404, 'Not Found');
        this.comments.splice(index, 1);
        return [204, null];
      }
      case 'reactions/create-for-issue-comment': {
        this.installationFor(headers, repo);
        const existing = this.reactions.find((r) => r.repo === repo && r.commentId === Number(p.comment_id) && r.content === body.content);
        if (!existing) this.reactions.push({ repo, commentId: Number(p.comment_id), content: body.content as string });
        return [existing ? 200 : 201, { id: id(), content: body.content }];
      }
      case 'repos/get-collaborator-permission-level': {
        this.installationFor(headers, repo);
        const permission = this.permissions.get(`${repo}:${p.username}`);
        if (!permission) throw httpError(404, 'Not Found');
        return [200, { permission, role_name: permission, user: { login: p.username } }];
      }
      case 'pulls/get': {
        this.installationFor(headers, repo);
        const pull = this.pulls.get(`${repo}#${p.pull_number}`);
        if (!pull) throw httpError(404, 'Not Found');
        return [200, { number: Number(p.pull_number), base: { ref: pull.baseRef }, head: { ref: 'feature' } }];
      }
      default:
        throw httpError(501, `the fake does not implement ${op}`);
    }
  }
}

function httpError(status: number, message: string): Error & { status: number } {
  return Object.assign(new Error(message), { status });
}
