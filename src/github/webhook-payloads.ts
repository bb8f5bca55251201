// zod schemas of the webhook payload fields svc reads (everything else passes through untouched).
import { z } from 'zod';

const id = z.number().int().positive();
const repository = z.looseObject({ id, full_name: z.string().regex(/^[^/\s]+\/[^/\s]+$/) });
const installationRef = z.looseObject({ id }).nullish();
const user = z.looseObject({ login: z.string().min(1).max(100), id, type: z.string() });

export const pushPayloadSchema = z.looseObject({
  ref: z.string().min(1).max(1000),
  after: z.string().max(64),
  deleted: z.boolean().optional(),
  repository,
  installation: installationRef,
});

export const commentPayloadSchema = z.looseObject({
  action: z.string(),
  comment: z.looseObject({ id, body: z.string().max(65_536), user }),
  issue: z.looseObject({ number: id, pull_request: z.unknown().optional() }),
  repository,
  installation: installationRef,
});

const installation = z.looseObject({
  id,
  account: z.looseObject({ login: z.string(), type: z.string().optional() }).nullable(),
  repository_selection: z.string().optional(),
  suspended_at: z.string().nullish(),
});
const repoRef = z.looseObject({ id, full_name: z.string() });

export const installationPayloadSchema = z.looseObject({ action: z.string(), installation, repositories: z.array(repoRef).optional() });

export const installationReposPayloadSchema = z.looseObject({
  action: z.string(),
  installation,
  repository_selection: z.string().optional(),
  repositories_added: z.array(repoRef),
  repositories_removed: z.array(z.looseObject({ id, full_name: z.string().optional() })),
});

const app = z.looseObject({ id }).nullish();
const sender = z.looseObject({ login: z.string(), id });

export const checkRunPayloadSchema = z.looseObject({
  action: z.string(),
  check_run: z.looseObject({ id, name: z.string(), head_sha: z.string(), app }),
  repository,
  sender,
});

export const checkSuitePayloadSchema = z.looseObject({
  action: z.string(),
  check_suite: z.looseObject({ head_sha: z.string(), head_branch: z.string().nullable(), app }),
  repository,
  sender,
});

const prRepo = z.looseObject({ id, full_name: z.string(), html_url: z.string().url() });

export const pullRequestPayloadSchema = z.looseObject({
  action: z.string(),
  number: id,
  pull_request: z.looseObject({
    number: id,
    title: z.string().max(1000),
    user: z.looseObject({ login: z.string() }).nullable(),
    merged: z.boolean().nullish(),
    head: z.looseObject({ ref: z.string().min(1).max(1000), sha: z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/), repo: z.looseObject({ id }).nullable() }),
    base: z.looseObject({ ref: z.string().min(1).max(1000), repo: prRepo }),
  }),
  repository,
  installation: installationRef,
});
