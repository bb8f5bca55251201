// createBucketManager: validates definitions, opens the catalog, checks the immutable bucket contracts,
// sweeps, and returns the API used by server actions, the Fetch handler (HTTP routes) and agent tools.
import { RuntimeError } from '../errors.js';
import { definitionOf, partitionOf, randomToken, toInfo, type BucketContext } from './bucket-context.js';
import { handleBucketRequest } from './bucket-routes.js';
import { signingKeyBytes } from './capability.js';
import { Catalog } from './catalog.js';
import { defineBuckets, variantGeometry, type BucketDefinition, type BucketDefinitionInput } from './define-bucket.js';
import { deploymentLimitsFromEnv, strictestDeployment, type DeploymentLimits, type UsageCounts } from './effective-limits.js';
import { collectGarbage } from './garbage-ledger.js';
import type { BucketHandle, BucketManager } from './bucket-manager.js';
import { deleteObject, findObject, listObjects, openObject, readObject, readUrl } from './object-service.js';
import type { StorageBackend } from './storage-backend.js';
import { generateVariant } from './images/generate-variant.js';
import type { ImageTransformer } from './images/image-transformer.js';
import { createExtraRoutes, type AgentEndpointOptions, type InventoryOptions } from './agent/extra-routes.js';
import { sweep } from './sweep.js';
import { cancelUpload, createUpload, putObject, writeChunk } from './upload-service.js';

/** Options of createBucketManager. */
export interface BucketManagerOptions {
  definitions: readonly (BucketDefinitionInput | BucketDefinition)[];
  backend: StorageBackend;
  /** SQLite catalog file (regular file, owner-only; created if missing). */
  catalogPath: string;
  /** HMAC key for capabilities (`SVC_BUCKET_SIGNING_KEY`, at least 32 characters). */
  signingKey: string | Uint8Array;
  /** Lower the deployment ceilings further (the environment's ceilings can never be raised). */
  limits?: Partial<DeploymentLimits>;
  /** Environment read for `SVC_BUCKET_MAX_BYTES` / `SVC_BUCKET_MAX_OBJECTS` (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  clock?: () => number;
  randomId?: () => string;
  /** Protocol prefix used in URLs (default `/__svc`). */
  prefix?: string;
  /** Reservation and upload-capability lifetime (default 6 h, at most 24 h). */
  reservationTtlMs?: number;
  /** Staging areas without a reservation are swept once older than this (default 1 h). */
  orphanGraceMs?: number;
  /** Image transformer for variants (e.g. createSharpTransformer()); without it variant generation fails. */
  imageTransformer?: ImageTransformer;
  /** Agent tools over MCP at `{prefix}/mcp` (agent/extra-routes.ts); absent: no MCP endpoint. */
  agent?: AgentEndpointOptions;
  /** Inventory page `{prefix}/buckets` options. */
  inventory?: InventoryOptions;
}

/** Create the bucket manager; runs the startup sweep (expired reservations, orphans, garbage ledger). */
export async function createBucketManager(options: BucketManagerOptions): Promise<BucketManager> {
  const definitions = defineBuckets(options.definitions);
  const deployment = strictestDeployment(deploymentLimitsFromEnv(options.env ?? process.env), options.limits);
  const signingKey = signingKeyBytes(options.signingKey);
  const catalog = new Catalog(options.catalogPath);
  const now = options.clock ?? Date.now;
  try {
    checkContracts(catalog, definitions);
  } catch (error) {
    catalog.close();
    throw error;
  }
  const orphanGraceMs = options.orphanGraceMs ?? 60 * 60 * 1000;
  const ctx: BucketContext = {
    catalog,
    backend: options.backend,
    definitions: new Map(definitions.map((d) => [d.name, d])),
    deployment,
    signingKey,
    now,
    randomId: options.randomId ?? randomToken,
    prefix: (options.prefix ?? '/__svc').replace(/\/+$/, ''),
    reservationTtlMs: Math.min(options.reservationTtlMs ?? 6 * 60 * 60 * 1000, 24 * 60 * 60 * 1000),
    hashes: new Map(),
    locks: new Set(),
    sweep: async () => {
      await sweep(catalog, options.backend, now);
    },
    collectGarbage: async () => {
      await collectGarbage(catalog, options.backend, now).catch(() => undefined);
    },
  };
  await sweep(catalog, options.backend, now, { orphans: true, orphanGraceMs });

  const variantStore = {
    definition: (name: string) => definitionOf(ctx, name),
    readBytes: (input: { bucket: string; owner: string | null; key: string }) =>
      handle(input.bucket)
        .read(input)
        .then((r) => ({ info: r.object, bytes: r.bytes })),
    put: (input: { bucket: string; owner: string | null; key: string; contentType: string; body: Uint8Array }) => putObject(ctx, input),
  };
  const handle = (name: string): BucketHandle => {
    const definition = definitionOf(ctx, name);
    return {
      definition,
      usage: (owner) => ({
        bucket: catalog.usage(definition.name, null),
        owner:
          owner === undefined || owner === null
            ? definition.ownership === 'app'
              ? catalog.usage(definition.name, '')
              : null
            : catalog.usage(definition.name, partitionOf(definition, owner)),
      }),
      put: (input) => putObject(ctx, { ...input, bucket: definition.name }),
      read: async (input) => {
        const row = findObject(ctx, definition.name, input.owner, input.key);
        return { object: toInfo(ctx, row), bytes: await readObject(ctx, row) };
      },
      stream: async (input) => {
        const row = findObject(ctx, definition.name, input.owner, input.key);
        return { object: toInfo(ctx, row), stream: await openObject(ctx, row, input.range) };
      },
      stat: (input) => toInfo(ctx, findObject(ctx, definition.name, input.owner, input.key)),
      list: (input = {}) => listObjects(ctx, { ...input, bucket: definition.name }),
      delete: (input) => deleteObject(ctx, { ...input, bucket: definition.name }),
      createUpload: (input) => createUpload(ctx, { ...input, bucket: definition.name }),
      readUrl: (input) => readUrl(ctx, { ...input, bucket: definition.name }),
      variant: (input) =>
        generateVariant(variantStore, options.imageTransformer, {
          bucket: definition.name,
          owner: input.owner ?? null,
          key: input.key,
          variant: input.variant,
        }),
    };
  };

  const extraRoutes = createExtraRoutes(() => manager, options.agent, options.inventory);
  const manager: BucketManager = {
    definitions,
    deployment,
    prefix: ctx.prefix,
    imageTransformer: options.imageTransformer ?? null,
    manifest: () => definitions.map((d) => ({ ...d })),
    usage() {
      const total = catalog.usage(null, null);
      const buckets: Record<string, UsageCounts> = {};
      for (const d of definitions) buckets[d.name] = catalog.usage(d.name, null);
      const finite = (n: number): number | null => (Number.isFinite(n) ? n : null);
      return { ...total, limits: { maxBytes: finite(deployment.maxBytes), maxObjects: finite(deployment.maxObjects) }, buckets };
    },
    bucket: handle,
    handleHttp: (http) => extraRoutes(http) ?? handleBucketRequest(ctx, { ...http, prefix: http.prefix }),
    uploads: {
      write: (id, offset, body, length) => writeChunk(ctx, id, offset, body, length),
      cancel: (id) => cancelUpload(ctx, id),
    },
    sweep: (sweepOptions = {}) => sweep(catalog, options.backend, now, { orphans: sweepOptions.orphans ?? false, orphanGraceMs }),
    async close() {
      catalog.close();
      await options.backend.close();
    },
  };
  return manager;
}

/** Variant names and geometry are immutable once a bucket holds data. */
function checkContracts(catalog: Catalog, definitions: readonly BucketDefinition[]): void {
  catalog.transaction(() => {
    for (const definition of definitions) {
      const geometry = JSON.stringify(variantGeometry(definition));
      const stored = catalog.contract(definition.name);
      if (stored === geometry) continue;
      if (stored !== undefined && catalog.hasData(definition.name)) {
        throw new RuntimeError(
          'SVC_BUCKET_CONTRACT_CHANGED',
          `Bucket "${definition.name}" holds data: its variant names and geometry cannot change (was ${stored}).`,
        );
      }
      catalog.setContract(definition.name, geometry);
    }
  });
}
