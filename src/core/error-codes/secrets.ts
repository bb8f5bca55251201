import { defineCodes } from './define.js';

/** Encrypted secrets and the platform master key (src/secrets). */
export const secretsCodes = defineCodes({
  SVC_SECRET_NAME_INVALID: {
    status: 400,
    retryable: false,
    summary: 'Secret names are 1–128 letters, digits and underscores, not starting with a digit.',
    hint: 'Use a name like DATABASE_URL with `svc secrets set <NAME>`.',
  },
  SVC_SECRET_NAME_RESERVED: {
    status: 400,
    retryable: false,
    summary: 'The secret name is controlled by the platform (PATH, HOME, HOST, PORT, NODE_ENV, TRUST_PROXY, NODE_OPTIONS, SVC_*, NODE_*, LD_*, …).',
    hint: 'Pick another name.',
  },
  SVC_SECRET_VALUE_INVALID: {
    status: 400,
    retryable: false,
    summary: 'The secret value cannot be passed to an app: it contains a NUL character, is not valid UTF-8, or exceeds 64 KiB.',
    hint: 'Environment variables cannot carry NUL; encode binary values (for example base64).',
  },
  SVC_SECRET_NOT_FOUND: {
    status: 404,
    retryable: false,
    summary: 'The project has no secret with this name.',
    hint: "List the project's secrets with `svc secrets` and use one of those names.",
  },
  SVC_SECRET_LIMIT: {
    status: 409,
    retryable: false,
    summary: 'The project already has the maximum number of secrets (200).',
    hint: 'Delete unused secrets with `svc secrets delete <NAME>`, or combine related values into one secret.',
  },
  SVC_SECRET_DECRYPT_FAILED: {
    status: 500,
    retryable: false,
    summary: 'An encrypted value failed authentication (it was altered, or belongs to another project, name or key); nothing was decrypted.',
    hint: 'Set the secret again; check that the master key is the one the secrets were encrypted with.',
  },
  SVC_MASTER_KEY_INVALID: {
    status: 500,
    retryable: false,
    summary:
      'The platform master key is malformed: SVC_PLATFORM_MASTER_KEY must be 32 bytes as 64 hex characters or base64, and the key file must be private (mode 0600).',
    hint: 'Generate one with `openssl rand -base64 32`.',
  },
  SVC_MASTER_KEY_MISMATCH: {
    status: 500,
    retryable: false,
    summary:
      'The platform master key is not the key the stored secrets and backups were encrypted with (key check value differs); the control plane refuses to start.',
    hint: 'Restore the original <data>/master.key or SVC_PLATFORM_MASTER_KEY; to change keys use the rotation procedure in docs/secrets.md.',
  },
  SVC_MASTER_KEY_MISSING: {
    status: 500,
    retryable: false,
    summary:
      'Secrets were encrypted under a master key, but neither SVC_PLATFORM_MASTER_KEY nor <data>/master.key is present; a new key is not generated over existing data.',
    hint: 'Restore <data>/master.key from your backup or set SVC_PLATFORM_MASTER_KEY.',
  },
});
