// HTTP routes of runner nodes (src/nodes/contract.ts): operator routes (platform admin), node routes
// (node credential only) and the placement and generation routes of a project.
import { createReadStream } from 'node:fs';
import { z } from 'zod';
import { SvcError } from '../core/errors.js';
import { bearerOnly, bearerOrSession, type HttpApp } from '../core/http/create-http-app.js';
import { actorOf } from '../identity/index.js';
import { requireProjectPermission, type ProjectAccess } from '../projects/index.js';
import {
  artifactMediaType,
  createRegistrationTokenSchema,
  enrollRequestSchema,
  enrollResponseSchema,
  failRequestSchema,
  generationRequestSchema,
  generationStatusSchema,
  heartbeatRequestSchema,
  heartbeatResponseSchema,
  holdRequestSchema,
  holdResponseSchema,
  leaseResponseSchema,
  nodeListSchema,
  observeRequestSchema,
  observeResponseSchema,
  placementRequestSchema,
  placementSchema,
  registrationTokenSchema,
  renewRequestSchema,
  renewResponseSchema,
} from './contract.js';
import { createRegistrationToken, enrollNode } from './enroll-node.js';
import { createGeneration, generationStatus } from './generations.js';
import { authenticateNode, requireNodeAdmin } from './node-auth.js';
import { artifactOfOperation, failOperation, holdingOperation, leaseNext, observeFromReports, observeOperation, renewOperation } from './node-leases.js';
import type { NodeRouting } from './node-routing.js';
import { getOperation } from './operation-store.js';
import { getPlacement, recordHeartbeat } from './node-store.js';
import type { NodesContext } from './nodes-context.js';
import { listNodeViews, placementView, placeProjectOnNode } from './placement-service.js';

const projectParams = z.object({ id: z.string().min(1).max(100).describe('project id or slug') });
const operationParams = z.object({ operationId: z.string().min(1).max(128) });
// Node routes take a registration token or node credential as the bearer (never an account token).
const nodeSecurity = bearerOnly;
const subjectOf = (access: ProjectAccess) => ({
  project: { id: access.project.id, organizationId: access.project.organization_id },
  actor: actorOf(access.principal),
});

/** Register every node route. */
export function nodeRoutes(n: NodesContext, routing: NodeRouting) {
  const { ctx } = n;
  return async function register(app: HttpApp): Promise<void> {
    // ---- operators (platform admin: session + CSRF, or an account-wide admin token) ----
    app.post(
      '/api/admin/nodes/registration-tokens',
      {
        schema: {
          tags: ['nodes'],
          security: bearerOrSession,
          summary: 'Create a one-time runner registration token (platform admin; shown once)',
          body: createRegistrationTokenSchema,
          response: { 201: registrationTokenSchema },
        },
      },
      async (request, reply) => {
        const principal = requireNodeAdmin(ctx, request);
        return reply.status(201).send(createRegistrationToken(n, principal, request.body ?? createRegistrationTokenSchema.parse({})));
      },
    );
    app.get(
      '/api/admin/nodes',
      {
        schema: {
          tags: ['nodes'],
          security: bearerOrSession,
          summary: 'Enrolled runner nodes with status and placed projects (platform admin)',
          response: { 200: nodeListSchema },
        },
      },
      async (request) => {
        requireNodeAdmin(ctx, request);
        return { nodes: listNodeViews(n) };
      },
    );

    // ---- nodes (registration token once, then the node credential) ----
    app.post(
      '/api/nodes/enroll',
      {
        schema: {
          tags: ['nodes'],
          security: nodeSecurity,
          summary: 'Enroll a runner node with a one-time registration token (returns the node credential once)',
          body: enrollRequestSchema,
          response: { 201: enrollResponseSchema },
        },
      },
      async (request, reply) => reply.status(201).send(enrollNode(n, request, request.body)),
    );
    app.post(
      '/api/nodes/heartbeat',
      {
        schema: {
          tags: ['nodes'],
          security: nodeSecurity,
          summary: 'Node liveness, draining flag, capacity and labels (node credential)',
          body: heartbeatRequestSchema,
          response: { 200: heartbeatResponseSchema },
        },
      },
      async (request) => {
        const node = authenticateNode(ctx.db, request);
        const now = ctx.clock.now();
        recordHeartbeat(ctx.db, node.id, request.body, now);
        const projects = request.body.projects;
        if (projects) {
          // What the node runs is the truth: route to it, then settle operations it already converged
          // (in that order, so a release answered `active` from a heartbeat is already reachable).
          await routing.report(node, projects, { complete: true });
          n.canaries.report(node.id, projects, (projectId) => getPlacement(ctx.db, projectId)?.node_id, { complete: true });
          observeFromReports(n, node, request.body.provider ?? 'unknown', projects);
        }
        return { nodeLeaseMs: n.settings.nodeLeaseMs, serverTime: new Date(now).toISOString() };
      },
    );
    app.post(
      '/api/nodes/operations/lease',
      {
        schema: {
          tags: ['nodes'],
          security: nodeSecurity,
          summary: 'Lease the next reconcile operation of this node (204: nothing to do)',
          response: { 200: leaseResponseSchema, 204: z.null().describe('nothing to do') },
        },
      },
      async (request, reply) => {
        const node = authenticateNode(ctx.db, request);
        const lease = leaseNext(n, node);
        return lease ? reply.status(200).send(lease) : reply.status(204).send(null);
      },
    );
    app.post(
      '/api/nodes/operations/:operationId/renew',
      {
        schema: {
          tags: ['nodes'],
          security: nodeSecurity,
          summary: 'Renew a live lease (409 SVC_NODE_LEASE_LOST once lost)',
          params: operationParams,
          body: renewRequestSchema.nullish(),
          response: { 200: renewResponseSchema },
        },
      },
      async (request) => renewOperation(n, authenticateNode(ctx.db, request), request.params.operationId, request.body?.fence),
    );
    app.get(
      '/api/nodes/operations/:operationId/artifact',
      {
        schema: {
          tags: ['nodes'],
          security: nodeSecurity,
          summary: `Artifact bytes (${artifactMediaType}) of a running operation this node leases`,
          params: operationParams,
          response: { 200: z.string().describe('raw artifact bytes') },
        },
      },
      async (request, reply) => {
        const artifact = artifactOfOperation(n, authenticateNode(ctx.db, request), request.params.operationId);
        return reply
          .header('content-type', artifactMediaType)
          .header('x-svc-artifact-digest', artifact.sha256)
          .send(createReadStream(artifact.path) as unknown as string); // a stream bypasses the serializer
      },
    );
    app.post(
      '/api/nodes/operations/:operationId/observe',
      {
        schema: {
          tags: ['nodes'],
          security: nodeSecurity,
          summary: 'Report the generation as observed (current lease holder and fence only)',
          params: operationParams,
          body: observeRequestSchema,
          response: { 200: observeResponseSchema },
        },
      },
      async (request) => {
        const node = authenticateNode(ctx.db, request);
        const { result, upstream } = request.body;
        const op = getOperation(ctx.db, request.params.operationId);
        const projectId = op?.project_id;
        if (op?.canary === 1 && op.node_id === node.id) {
          // A canary's address is its candidate's: never routed (the canary rollout splits traffic to it).
          if (upstream && op.release_id !== null && result.releaseId === op.release_id)
            n.canaries.observed(node.id, op.project_id, { generation: op.generation, releaseId: op.release_id, upstream });
        } else if (upstream !== undefined && projectId) {
          // Route before the release settles, so a deploy answered `active` is reachable at once.
          await routing.report(node, [{ projectId, generation: result.generation, state: result.state, releaseId: result.releaseId, upstream }]);
        }
        return observeOperation(n, node, request.params.operationId, request.body);
      },
    );
    app.post(
      '/api/nodes/operations/:operationId/hold',
      {
        schema: {
          tags: ['nodes'],
          security: nodeSecurity,
          summary: "Hold the project's requests at the ingress before the node stops its writer (stop-first cutover; current lease holder only)",
          params: operationParams,
          body: holdRequestSchema.nullish(),
          response: { 200: holdResponseSchema },
        },
      },
      async (request) => {
        const node = authenticateNode(ctx.db, request);
        const { projectId } = holdingOperation(n, node, request.params.operationId, request.body?.fence);
        await routing.hold(node, projectId);
        return { held: true as const };
      },
    );
    app.post(
      '/api/nodes/operations/:operationId/fail',
      {
        schema: {
          tags: ['nodes'],
          security: nodeSecurity,
          summary: 'Report the operation failed with a stable SVC_* code (current lease holder only)',
          params: operationParams,
          body: failRequestSchema,
          response: { 200: observeResponseSchema },
        },
      },
      async (request) => {
        const answer = failOperation(n, authenticateNode(ctx.db, request), request.params.operationId, request.body);
        // A held route follows the node's next report (it restored the previous app).
        const projectId = getOperation(ctx.db, request.params.operationId)?.project_id;
        if (projectId) await routing.releaseHold(projectId);
        return answer;
      },
    );

    // ---- projects ----
    app.put(
      '/api/projects/:id/placement',
      {
        schema: {
          tags: ['nodes'],
          security: bearerOrSession,
          summary: 'Place the project on a runner node (admin permission)',
          params: projectParams,
          body: placementRequestSchema,
          response: { 200: placementSchema },
        },
      },
      async (request) => {
        const access = requireProjectPermission(ctx, request, request.params.id, 'admin');
        const before = getPlacement(ctx.db, access.project.id)?.node_id;
        const placed = placeProjectOnNode(n, subjectOf(access), request.body);
        if (before !== undefined && before !== placed.nodeId) await routing.forget(access.project.id);
        return placed;
      },
    );
    app.get(
      '/api/projects/:id/placement',
      {
        schema: {
          tags: ['nodes'],
          security: bearerOrSession,
          summary: 'The runner node a project is placed on (409 SVC_NODE_NOT_PLACED when it is not placed)',
          params: projectParams,
          response: { 200: placementSchema },
        },
      },
      async (request) => {
        const { project } = requireProjectPermission(ctx, request, request.params.id, 'read');
        const row = getPlacement(ctx.db, project.id);
        if (!row) throw new SvcError('SVC_NODE_NOT_PLACED');
        return placementView(n, row);
      },
    );
    app.post(
      '/api/projects/:id/generations',
      {
        schema: {
          tags: ['nodes'],
          security: bearerOrSession,
          summary: 'Request a new desired generation: running a release, or stopped (deploy permission)',
          params: projectParams,
          body: generationRequestSchema,
          response: { 201: generationStatusSchema },
        },
      },
      async (request, reply) => {
        const access = requireProjectPermission(ctx, request, request.params.id, 'deploy');
        return reply.status(201).send(createGeneration(n, subjectOf(access), request.body));
      },
    );
    app.get(
      '/api/projects/:id/generations',
      {
        schema: {
          tags: ['nodes'],
          security: bearerOrSession,
          summary: 'Desired and observed generation of a placed project, with its newest operations',
          params: projectParams,
          response: { 200: generationStatusSchema },
        },
      },
      async (request) => {
        const { project } = requireProjectPermission(ctx, request, request.params.id, 'read');
        return generationStatus(n, project.id);
      },
    );
  };
}
