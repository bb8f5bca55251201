// The secrets feature: load (or generate) the master key and check it against the stored check
// value, set/list/delete encrypted secrets with audit events, and decrypt one scope of a project's
// secrets for the supervisor (`loadSecrets`, called on every app start so changes apply on the next
// start). Every operation names its scope; production is the default, and a preview's secrets come
// only from the preview scope, so a production value never reaches a pull-request preview.
import type { FeatureContext } from '../core/feature-context.js';
import { SvcError } from '../core/errors.js';
import { appendAudit, type AuditInput } from '../audit/append-audit.js';
import { checkSecretName, checkSecretValue, MAX_SECRETS_PER_PROJECT, type SecretInfo, type SecretScope } from './contract.js';
import { loadMasterKey, type Keyring } from './master-key.js';
import { openBox, sealBox, secretAad } from './secret-box.js';
import {
  countSecrets,
  deleteSecretRow,
  findSecretRow,
  listSecretRows,
  readCheckValue,
  toSecretInfo,
  upsertSecretRow,
  writeCheckValue,
} from './secret-store.js';

/** Who changes a secret, for the audit event. */
export interface SecretSubject {
  project: { id: string; organizationId: string };
  actor: AuditInput['actor'];
}

export interface SecretsFeature {
  readonly keyring: Keyring;
  /**
   * Decrypted secrets of one scope of a project, nothing from the other scope (throws
   * SVC_SECRET_DECRYPT_FAILED if any box fails authentication). Previews call it with their parent
   * project and 'preview'.
   */
  loadSecrets(projectId: string, scope?: SecretScope): Promise<Record<string, string>>;
  /** Names and timestamps of one scope. */
  list(projectId: string, scope?: SecretScope): SecretInfo[];
  /** Create or replace a secret of a scope; audited as secret.set with the name and scope only. */
  set(subject: SecretSubject, name: string, value: string, scope?: SecretScope): { secret: SecretInfo; created: boolean };
  /** Delete a secret of a scope; audited as secret.delete. */
  delete(subject: SecretSubject, name: string, scope?: SecretScope): void;
}

/** "Production" or "Preview", to begin a message. Pure. */
function scopeLabel(scope: SecretScope): string {
  return scope === 'production' ? 'Production' : 'Preview';
}

/** Throw the registry error for a bad name. */
function assertSecretName(name: string): void {
  const problem = checkSecretName(name);
  if (problem === 'invalid') throw new SvcError('SVC_SECRET_NAME_INVALID', `"${name.slice(0, 130)}" is not a valid secret name.`);
  if (problem === 'reserved') throw new SvcError('SVC_SECRET_NAME_RESERVED', `${name} is controlled by the platform.`);
}

/**
 * Build the secrets feature. Loads the master key now, so a wrong key stops the control plane at
 * start (SVC_MASTER_KEY_MISMATCH) instead of failing later at the first app start.
 */
export function createSecrets(ctx: FeatureContext): SecretsFeature {
  const stored = readCheckValue(ctx);
  const keyring = loadMasterKey({ env: ctx.config.env, dataDir: ctx.config.dataDir, storedCheckValue: stored });
  if (stored === null) writeCheckValue(ctx, keyring.checkValue, ctx.clock.now());

  return {
    keyring,
    async loadSecrets(projectId, scope = 'production') {
      const out: Record<string, string> = {};
      for (const row of listSecretRows(ctx, projectId, scope)) {
        try {
          out[row.name] = openBox(keyring.secretsKey, row.ciphertext, secretAad(projectId, scope, row.name)).toString('utf8');
        } catch (error) {
          throw new SvcError('SVC_SECRET_DECRYPT_FAILED', `${scopeLabel(scope)} secret ${row.name} of ${projectId} failed authentication; set it again.`, {
            cause: error,
          });
        }
      }
      return out;
    },
    list: (projectId, scope = 'production') => listSecretRows(ctx, projectId, scope).map(toSecretInfo),
    set(subject, name, value, scope = 'production') {
      assertSecretName(name);
      const problem = checkSecretValue(value);
      if (problem !== null)
        throw new SvcError(
          'SVC_SECRET_VALUE_INVALID',
          problem === 'nul'
            ? 'The value contains a NUL character, which an environment variable cannot carry.'
            : problem === 'encoding'
              ? 'The value is not valid UTF-8.'
              : 'The value exceeds 64 KiB.',
        );
      const box = sealBox(keyring.secretsKey, Buffer.from(value, 'utf8'), secretAad(subject.project.id, scope, name));
      const now = ctx.clock.now();
      const created = ctx.db
        .transaction(() => {
          if (!findSecretRow(ctx, subject.project.id, scope, name) && countSecrets(ctx, subject.project.id, scope) >= MAX_SECRETS_PER_PROJECT) {
            throw new SvcError('SVC_SECRET_LIMIT', `A project holds at most ${MAX_SECRETS_PER_PROJECT} ${scope} secrets.`);
          }
          const isNew = upsertSecretRow(ctx, subject.project.id, scope, name, box, now);
          appendAudit(ctx, {
            kind: 'secret.set',
            organizationId: subject.project.organizationId,
            projectId: subject.project.id,
            actor: subject.actor,
            metadata: { name, scope, created: isNew },
          });
          return isNew;
        })
        .immediate();
      return { secret: toSecretInfo(findSecretRow(ctx, subject.project.id, scope, name)!), created };
    },
    delete(subject, name, scope = 'production') {
      ctx.db
        .transaction(() => {
          if (!deleteSecretRow(ctx, subject.project.id, scope, name))
            throw new SvcError('SVC_SECRET_NOT_FOUND', `No ${scope} secret named ${name.slice(0, 130)}.`);
          appendAudit(ctx, {
            kind: 'secret.delete',
            organizationId: subject.project.organizationId,
            projectId: subject.project.id,
            actor: subject.actor,
            metadata: { name, scope },
          });
        })
        .immediate();
    },
  };
}
