// Agent tools per bucket: bucket_<name>_list / _read / _put / _delete, plus _transform for image buckets with
// variants. Arguments are strict zod objects with no owner field: the partition comes from the identity only.
import { z } from 'zod';
import { RuntimeError } from '../../errors.js';
import type { ObjectInfo } from '../bucket-context.js';
import type { BucketDefinition } from '../define-bucket.js';
import { isVariantKey } from '../images/variant-key.js';
import { ownerFor, type BucketAccess } from './bucket-access.js';
import { AGENT_SCOPES, requireScope, type AgentIdentity, type AgentScope } from './agent-identity.js';

/** Largest object that travels inline as base64 (reads and puts); larger reads get a short-lived URL. */
export const DEFAULT_INLINE_BYTES = 256 * 1024;
/** Lifetime of the read URL handed out for large objects. */
export const READ_URL_TTL_MS = 5 * 60 * 1000;

/** Options of createAgentTools. */
export interface AgentToolOptions {
  /** Inline (base64) bound in bytes (default 256 KiB, at most 1 MiB). */
  maxInlineBytes?: number;
  /** Lifetime of read URLs for large objects (default 5 minutes, at most 15 minutes). */
  readUrlTtlMs?: number;
}

/** What a tool call returns: JSON for the agent plus optional inline images. */
export interface AgentToolResult {
  readonly json: Record<string, unknown>;
  readonly images: ReadonlyArray<{ data: string; mimeType: string }>;
}

/** Per-call context: the public origin used to make read URLs absolute. */
export interface AgentCallContext {
  readonly origin: string;
}

/** One tool: name, scope, strict input schema and its implementation. */
export interface AgentTool {
  readonly name: string;
  readonly bucket: string;
  readonly title: string;
  readonly description: string;
  readonly scope: AgentScope;
  readonly inputSchema: z.ZodObject;
  run(args: unknown, identity: AgentIdentity, context: AgentCallContext): Promise<AgentToolResult>;
}

const Key = z.string().min(1).max(1024);
const Sha = z.string().regex(/^[0-9a-f]{64}$/, 'a lowercase hex SHA-256');

/** The view of an object an agent sees (no storage keys, no owner ids). */
export function agentObject(info: ObjectInfo): Record<string, unknown> {
  return {
    key: info.key,
    size: info.size,
    contentType: info.contentType,
    sha256: info.sha256,
    generation: info.generation,
    width: info.width,
    height: info.height,
    updatedAt: new Date(info.updatedAt).toISOString(),
  };
}

/** Build the tools of every bucket exposed by `access`. */
export function createAgentTools(access: BucketAccess, options: AgentToolOptions = {}): AgentTool[] {
  const inline = Math.max(1, Math.min(1024 * 1024, Math.floor(options.maxInlineBytes ?? DEFAULT_INLINE_BYTES)));
  const ttlMs = Math.max(1000, Math.min(15 * 60 * 1000, Math.floor(options.readUrlTtlMs ?? READ_URL_TTL_MS)));
  return access.definitions().flatMap((definition) => bucketTools(access, definition, inline, ttlMs));
}

function bucketTools(access: BucketAccess, d: BucketDefinition, inline: number, ttlMs: number): AgentTool[] {
  const scopeNote = d.ownership === 'user' ? "in the signed-in user's own files" : 'in the application-wide keyspace';
  const tool = <S extends z.ZodObject>(
    suffix: string,
    scope: AgentScope,
    title: string,
    description: string,
    inputSchema: S,
    run: (args: z.output<S>, owner: string | null, context: AgentCallContext) => Promise<AgentToolResult>,
  ): AgentTool => ({
    name: `bucket_${d.name}_${suffix}`,
    bucket: d.name,
    title,
    description: `${description} Bucket "${d.name}"${d.description ? ` (${d.description})` : ''}, ${scopeNote}. Needs OAuth scope ${scope}.`,
    scope,
    inputSchema,
    async run(args, identity, context) {
      requireScope(identity, scope);
      const parsed = inputSchema.safeParse(args);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new RuntimeError('SVC_BUCKET_INVALID_REQUEST', `Argument ${issue.path.join('.') || '(input)'}: ${issue.message}`);
      }
      return run(parsed.data, ownerFor(d, identity.userId), context);
    },
  });
  const json = (value: Record<string, unknown>): AgentToolResult => ({ json: value, images: [] });
  const maxBase64 = Math.ceil(inline / 3) * 4;

  const tools: AgentTool[] = [
    tool(
      'list',
      AGENT_SCOPES.read,
      `List ${d.name}`,
      'List objects in key order (at most 100 per page) with usage.',
      z.strictObject({ prefix: z.string().max(1024).optional(), cursor: z.string().max(1024).optional(), limit: z.number().int().min(1).max(100).optional() }),
      async (a, owner) => {
        const page = await access.list({ bucket: d.name, owner, prefix: a.prefix ?? '', cursor: a.cursor ?? null, limit: a.limit ?? 50 });
        return json({ objects: page.objects.map(agentObject), nextCursor: page.nextCursor, usage: page.usage });
      },
    ),
    tool(
      'read',
      AGENT_SCOPES.read,
      `Read from ${d.name}`,
      `Read one object: base64 when at most ${inline} bytes, otherwise a URL valid for ${Math.round(ttlMs / 1000)} seconds.`,
      z.strictObject({ key: Key }),
      async (a, owner, context) => {
        const address = { bucket: d.name, owner, key: a.key };
        const info = await access.stat(address);
        if (info.size > inline) {
          const read = access.readUrl({ ...address, ttlMs });
          return json({
            object: agentObject(info),
            encoding: 'url',
            url: new URL(read.url, context.origin).toString(),
            expiresAt: new Date(read.expiresAt).toISOString(),
          });
        }
        const { info: current, bytes } = await access.readBytes(address);
        if (bytes.length > inline) throw new RuntimeError('SVC_BUCKET_PRECONDITION_FAILED', 'The object grew while reading; read it again.');
        const data = bytes.toString('base64');
        const images = current.contentType.startsWith('image/') && current.width !== null ? [{ data, mimeType: current.contentType }] : [];
        return { json: { object: agentObject(current), encoding: 'base64', data }, images };
      },
    ),
    tool(
      'put',
      AGENT_SCOPES.write,
      `Write to ${d.name}`,
      `Create or replace one object from base64 (at most ${inline} bytes); the full upload policy applies.`,
      z.strictObject({
        key: Key,
        contentType: z.string().min(3).max(200),
        data: z
          .string()
          .max(maxBase64)
          .regex(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/, 'standard base64'),
        ifSha256: Sha.or(z.literal('')).optional(),
      }),
      async (a, owner) => {
        if (isVariantKey(a.key)) throw new RuntimeError('SVC_BUCKET_INVALID_KEY', 'Variant keys are written by variant generation only.');
        const body = Buffer.from(a.data, 'base64');
        if (body.length > inline) throw new RuntimeError('SVC_BUCKET_TOO_LARGE', `Agent writes are at most ${inline} bytes.`);
        const info = await access.put({ bucket: d.name, owner, key: a.key, contentType: a.contentType, body, ifSha256: a.ifSha256 ?? null });
        return json({ object: agentObject(info) });
      },
    ),
    tool(
      'delete',
      AGENT_SCOPES.write,
      `Delete from ${d.name}`,
      'Delete one object (optionally only if its SHA-256 still matches).',
      z.strictObject({ key: Key, ifSha256: Sha.optional() }),
      async (a, owner) => {
        const deleted = await access.delete({ bucket: d.name, owner, key: a.key, ifSha256: a.ifSha256 ?? null });
        return json({ deleted });
      },
    ),
  ];
  const variants = Object.keys(d.image?.variants ?? {});
  if (variants.length > 0) {
    tools.push(
      tool(
        'transform',
        AGENT_SCOPES.write,
        `Make a variant in ${d.name}`,
        `Derive a declared image variant (${variants.join(', ')}) of an object; the output passes the upload policy again.`,
        z.strictObject({ key: Key, variant: z.enum(variants as [string, ...string[]]) }),
        async (a, owner) => {
          const info = await access.generateVariant({ bucket: d.name, owner, key: a.key, variant: a.variant });
          return json({ object: agentObject(info) });
        },
      ),
    );
  }
  return tools;
}
