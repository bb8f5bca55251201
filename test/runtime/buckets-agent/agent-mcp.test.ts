// Agent tools over MCP with the official SDK client (Streamable HTTP) against the runtime on loopback.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSharpTransformer } from '../../../src/runtime/buckets/images/create-sharp-transformer.js';
import { openBackend, sendFetchResponse, toFetchRequest, type BucketManager, type OpenedBackend } from '../../../src/runtime/index.js';
import { authBackend } from '../support/tasks-backend.js';
import { makeImage, tempBuckets } from '../buckets-images/support.js';

const definitions = [
  {
    name: 'files',
    ownership: 'user' as const,
    visibility: 'private' as const,
    allowedContentTypes: ['text/*', 'application/octet-stream'],
    maxObjectBytes: 1024 * 1024,
    perOwnerMaxBytes: 4 * 1024 * 1024,
  },
  { name: 'shared', ownership: 'app' as const, visibility: 'public' as const, browserAccess: 'public' as const, allowedContentTypes: ['text/plain'] },
  { name: 'internal', ownership: 'app' as const, visibility: 'private' as const, browserAccess: 'server' as const, allowedContentTypes: ['application/json'] },
  {
    name: 'photos',
    ownership: 'user' as const,
    visibility: 'private' as const,
    allowedContentTypes: ['image/png', 'image/webp'],
    image: {
      formats: ['png' as const, 'webp' as const],
      variants: { thumb: { width: 16, height: 16, fit: 'cover' as const, format: 'webp' as const, quality: 60 } },
    },
  },
];

const TOKENS: Record<string, { userId: string; scopes: string[] }> = {
  'alice-rw': { userId: 'alice', scopes: ['agent:read', 'agent:write'] },
  'alice-r': { userId: 'alice', scopes: ['agent:read'] },
  'bob-rw': { userId: 'bob', scopes: ['agent:read', 'agent:write'] },
  'carol-none': { userId: 'carol', scopes: ['profile'] },
};

let env: ReturnType<typeof tempBuckets>;
let manager: BucketManager;
let backend: OpenedBackend;
let server: Server;
let base: string;
let now = Date.UTC(2030, 0, 1);
const clients: Client[] = [];

beforeEach(async () => {
  now = Date.UTC(2030, 0, 1);
  env = tempBuckets();
  manager = await env.open({
    definitions,
    clock: () => now,
    imageTransformer: createSharpTransformer(),
    agent: { resolveAgentToken: (token) => TOKENS[token] ?? null, resourceMetadataUrl: 'http://127.0.0.1/.well-known/oauth-protected-resource/__svc/mcp' },
  });
  backend = openBackend(authBackend, { buckets: manager, onError: () => undefined });
  server = createServer((req, res) => {
    void backend.fetch(toFetchRequest(req, {}, res)).then((response) => sendFetchResponse(res, response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  backend.close();
  await env.cleanup();
});

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'svc-test-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/__svc/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}

interface ToolOutcome {
  isError: boolean;
  json: Record<string, unknown>;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolOutcome> {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as Array<{ type: string; text?: string }>).find((c) => c.type === 'text')?.text ?? '{}';
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = { text };
  }
  return { isError: result.isError === true, json };
}

const errorCode = (outcome: ToolOutcome) => (outcome.json.error as { code?: string } | undefined)?.code;

describe('agent tools over MCP', () => {
  it('lists the tools of every bucket (transform only for image buckets with variants)', async () => {
    const client = await connect('alice-rw');
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    expect(names).toEqual(
      ['files', 'internal', 'photos', 'shared']
        .flatMap((b) => [`bucket_${b}_delete`, `bucket_${b}_list`, `bucket_${b}_put`, `bucket_${b}_read`, ...(b === 'photos' ? [`bucket_${b}_transform`] : [])])
        .sort(),
    );
    const put = (await client.listTools()).tools.find((t) => t.name === 'bucket_files_put')!;
    expect(Object.keys(put.inputSchema.properties ?? {}).sort()).toEqual(['contentType', 'data', 'ifSha256', 'key']);
  });

  it('puts, lists, reads (base64) and deletes in the caller partition', async () => {
    const alice = await connect('alice-rw');
    const put = await call(alice, 'bucket_files_put', { key: 'notes/a.txt', contentType: 'text/plain', data: Buffer.from('hello agent').toString('base64') });
    expect(put.isError).toBe(false);
    expect(put.json.object).toMatchObject({ key: 'notes/a.txt', size: 11, contentType: 'text/plain' });
    const list = await call(alice, 'bucket_files_list', { prefix: 'notes/' });
    expect((list.json.objects as Array<{ key: string }>).map((o) => o.key)).toEqual(['notes/a.txt']);
    expect(list.json.usage).toMatchObject({ owner: { objects: 1, bytes: 11 } });
    const read = await call(alice, 'bucket_files_read', { key: 'notes/a.txt' });
    expect(read.json).toMatchObject({ encoding: 'base64' });
    expect(Buffer.from(read.json.data as string, 'base64').toString()).toBe('hello agent');
    // The same user in the UI sees the same object: the manager stores it in alice's partition.
    expect(
      manager
        .bucket('files')
        .list({ owner: 'alice' })
        .objects.map((o) => o.key),
    ).toEqual(['notes/a.txt']);
    expect((await call(alice, 'bucket_files_delete', { key: 'notes/a.txt' })).json).toEqual({ deleted: true });
    expect(manager.bucket('files').list({ owner: 'alice' }).objects).toEqual([]);
    // Server-only buckets stay available to agents.
    expect(
      (await call(alice, 'bucket_internal_put', { key: 'cfg.json', contentType: 'application/json', data: Buffer.from('{}').toString('base64') })).isError,
    ).toBe(false);
  });

  it('returns a short-lived, object-bound URL for large reads', async () => {
    const big = Buffer.alloc(300 * 1024, 7);
    await manager.bucket('files').put({ owner: 'alice', key: 'big.bin', contentType: 'application/octet-stream', body: big });
    const alice = await connect('alice-r');
    const read = await call(alice, 'bucket_files_read', { key: 'big.bin' });
    expect(read.json).toMatchObject({ encoding: 'url' });
    expect(read.json.data).toBeUndefined();
    const url = new URL(read.json.url as string);
    expect(url.origin).toBe(base);
    expect(Date.parse(read.json.expiresAt as string) - now).toBeLessThanOrEqual(5 * 60 * 1000);
    const fetched = await fetch(url);
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await fetched.arrayBuffer()).equals(big)).toBe(true);
    // Bound to one object: pointing it at another key fails.
    const other = new URL(url);
    other.pathname = other.pathname.replace('/files/', '/shared/');
    expect((await fetch(other)).status).toBe(403);
    now += 6 * 60 * 1000;
    expect((await fetch(url)).status).toBe(403);
  });

  it('enforces agent:read / agent:write scopes', async () => {
    const reader = await connect('alice-r');
    const denied = await call(reader, 'bucket_files_put', { key: 'x.txt', contentType: 'text/plain', data: Buffer.from('x').toString('base64') });
    expect([denied.isError, errorCode(denied)]).toEqual([true, 'SVC_BUCKET_FORBIDDEN']);
    expect(errorCode(await call(reader, 'bucket_files_delete', { key: 'x.txt' }))).toBe('SVC_BUCKET_FORBIDDEN');
    expect((await call(reader, 'bucket_files_list', {})).isError).toBe(false);
    expect(manager.bucket('files').list({ owner: 'alice' }).objects).toEqual([]);
    await expect(connect('carol-none')).rejects.toThrow();
    await expect(connect('no-such-token')).rejects.toThrow();
    const anonymous = await fetch(`${base}/__svc/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(
      /^Bearer .*resource_metadata="http:\/\/127\.0\.0\.1\/\.well-known\/oauth-protected-resource\/__svc\/mcp"/,
    );
    const noScope = await fetch(`${base}/__svc/mcp`, {
      method: 'POST',
      headers: { authorization: 'Bearer carol-none', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(noScope.status).toBe(403);
    expect(noScope.headers.get('www-authenticate')).toMatch(/insufficient_scope/);
    // A session cookie is not an agent credential.
    expect(
      (await fetch(`${base}/__svc/mcp`, { method: 'POST', headers: { cookie: 'svc_session=whatever', 'content-type': 'application/json' }, body: '{}' }))
        .status,
    ).toBe(401);
  });

  it('fault: an agent tool cannot reach another user partition', async () => {
    await manager.bucket('files').put({ owner: 'alice', key: 'secret.txt', contentType: 'text/plain', body: 'alice only' });
    const bob = await connect('bob-rw');
    expect((await call(bob, 'bucket_files_list', {})).json.objects).toEqual([]);
    expect(errorCode(await call(bob, 'bucket_files_read', { key: 'secret.txt' }))).toBe('SVC_BUCKET_NOT_FOUND');
    expect((await call(bob, 'bucket_files_delete', { key: 'secret.txt' })).json).toEqual({ deleted: false });
    // No argument can name an owner: the strict schema refuses extra fields.
    for (const [tool, args] of [
      ['bucket_files_list', { owner: 'alice' }],
      ['bucket_files_read', { key: 'secret.txt', owner: 'alice' }],
      ['bucket_files_read', { key: 'secret.txt', userId: 'alice' }],
      ['bucket_files_delete', { key: 'secret.txt', owner: 'alice' }],
    ] as const) {
      let outcome: ToolOutcome | null = null;
      try {
        outcome = await call(bob, tool, args);
      } catch {
        outcome = null; // a JSON-RPC invalid-params error is also a refusal
      }
      if (outcome !== null) {
        expect(outcome.isError).toBe(true);
        expect(JSON.stringify(outcome.json)).not.toContain('alice only');
      }
    }
    // Bob's own write with the same key lands in bob's partition; alice's object is untouched.
    await call(bob, 'bucket_files_put', { key: 'secret.txt', contentType: 'text/plain', data: Buffer.from('bob').toString('base64') });
    expect((await manager.bucket('files').read({ owner: 'alice', key: 'secret.txt' })).bytes.toString()).toBe('alice only');
    expect((await manager.bucket('files').read({ owner: 'bob', key: 'secret.txt' })).bytes.toString()).toBe('bob');
    // The large-read URL of bob's object is not usable for alice's object either.
    expect(manager.bucket('files').list({ owner: 'alice' }).objects).toHaveLength(1);
  });

  it('transforms an image into its declared variant through the policy', async () => {
    const alice = await connect('alice-rw');
    const png = await makeImage(64, 40, 'png');
    expect((await call(alice, 'bucket_photos_put', { key: 'cat.png', contentType: 'image/png', data: png.toString('base64') })).isError).toBe(false);
    const made = await call(alice, 'bucket_photos_transform', { key: 'cat.png', variant: 'thumb' });
    expect(made.json.object).toMatchObject({ key: '.variants/thumb/cat.png', contentType: 'image/webp', width: 16, height: 16 });
    const read = await call(alice, 'bucket_photos_read', { key: '.variants/thumb/cat.png' });
    expect((await sharp(Buffer.from(read.json.data as string, 'base64')).metadata()).format).toBe('webp');
    const spoof = await call(alice, 'bucket_photos_put', { key: '.variants/thumb/cat.png', contentType: 'image/png', data: png.toString('base64') });
    expect(errorCode(spoof)).toBe('SVC_BUCKET_INVALID_KEY');
    const bob = await connect('bob-rw');
    expect(errorCode(await call(bob, 'bucket_photos_transform', { key: 'cat.png', variant: 'thumb' }))).toBe('SVC_BUCKET_NOT_FOUND');
  });

  it('publishes bucket definitions in the manifest', async () => {
    const manifest = (await (await fetch(`${base}/__svc/manifest`)).json()) as {
      buckets: Array<{ name: string; image?: { variants: Record<string, unknown> } }>;
    };
    expect(manifest.buckets.map((b) => b.name)).toEqual(['files', 'shared', 'internal', 'photos']);
    expect(manifest.buckets.find((b) => b.name === 'photos')!.image!.variants).toEqual({
      thumb: { width: 16, height: 16, fit: 'cover', format: 'webp', quality: 60 },
    });
  });
});
