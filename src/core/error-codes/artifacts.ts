import { defineCodes } from './define.js';

/** svc.deploy.json and svc-deploy/1 artifact codes: one stable code per rule (src/artifacts). */
export const artifactCodes = defineCodes({
  // svc.deploy.json
  SVC_CONFIG_NOT_FOUND: {
    status: 400,
    retryable: false,
    summary: 'svc.deploy.json was not found in the app directory.',
    hint: 'Create svc.deploy.json (see docs/configuration.md) or run the command from the app directory.',
  },
  SVC_CONFIG_INVALID_JSON: {
    status: 400,
    retryable: false,
    summary: 'svc.deploy.json is not valid JSON.',
    hint: 'Fix the JSON syntax; comments and trailing commas are not allowed.',
  },
  SVC_CONFIG_FIELD_INVALID: {
    status: 422,
    retryable: false,
    summary: 'A svc.deploy.json field has the wrong type or value, or a required field is missing; the message names the field and the rule.',
    hint: 'Fix the field named in the message; docs/configuration.md lists every field and its rules.',
  },
  SVC_CONFIG_UNKNOWN_FIELD: {
    status: 422,
    retryable: false,
    summary: 'svc.deploy.json contains a field svc does not know (often a typo).',
    hint: 'Remove or rename the field; docs/configuration.md lists every field.',
  },
  SVC_CONFIG_UNSUPPORTED_VERSION: {
    status: 422,
    retryable: false,
    summary: 'svc.deploy.json `version` is not 1.',
    hint: 'Set "version": 1 in svc.deploy.json.',
  },
  SVC_CONFIG_ENTRY_INVALID: {
    status: 422,
    retryable: false,
    summary: '`entry` is not a .js or .mjs file inside an included path.',
    hint: 'Point `entry` at the built .js or .mjs file (for example dist/server.mjs) inside one of the `include` paths.',
  },
  SVC_CONFIG_GLOB_NOT_SUPPORTED: {
    status: 422,
    retryable: false,
    summary: 'An `include` path contains shell glob characters; only literal files or directories are supported.',
    hint: 'List the directory (for example "dist") instead of a pattern.',
  },
  SVC_CONFIG_PATH_INVALID: {
    status: 422,
    retryable: false,
    summary: 'A path in svc.deploy.json is absolute, leaves the app directory, or is otherwise not a plain relative path.',
    hint: 'Use a plain relative path inside the app directory, such as dist or migrations.',
  },
  SVC_CONFIG_FORBIDDEN_PATH: {
    status: 422,
    retryable: false,
    summary: 'An `include` path names a forbidden file (.env*, private key or version-control metadata).',
    hint: 'Remove the path from `include`; put credentials in `svc secrets set` instead.',
  },
  SVC_CONFIG_RESERVED_ENV: {
    status: 422,
    retryable: false,
    summary: '`env` uses a reserved name (PORT, HOST, NODE_OPTIONS or SVC_*).',
    hint: 'Rename the variable; the platform sets these itself.',
  },
  SVC_CONFIG_ENV_INVALID: {
    status: 422,
    retryable: false,
    summary: 'An `env` name is not a valid environment variable name or its value is not an allowed string.',
    hint: 'Use names of letters, digits and underscores (not starting with a digit) and plain string values; put sensitive values in `svc secrets set`.',
  },
  SVC_CONFIG_BUILD_COMMAND_INVALID: {
    status: 422,
    retryable: false,
    summary: '`build.command` must be a non-empty array of strings (it is run without a shell).',
    hint: 'Write ["npm","run","build"] rather than "npm run build".',
  },
  SVC_CONFIG_PATH_NOT_FOUND: {
    status: 422,
    retryable: false,
    summary: 'A path named in svc.deploy.json (include entry, entry file or migrations directory) does not exist.',
    hint: 'Run the build first, or fix the path.',
  },
  // Artifact: size limits (checked while streaming)
  SVC_ARTIFACT_REQUEST_TOO_LARGE: {
    status: 413,
    retryable: false,
    summary: 'The upload body exceeds the request size limit.',
    hint: 'Include fewer or smaller files; `svc deploy --dry-run` shows the artifact size before an upload.',
  },
  SVC_ARTIFACT_TOO_LARGE: {
    status: 413,
    retryable: false,
    summary: 'The compressed artifact exceeds the gzip size limit.',
    hint: 'Include fewer or smaller files (leave out node_modules, caches and large assets); `svc deploy --dry-run` shows the size.',
  },
  SVC_ARTIFACT_DECOMPRESSED_TOO_LARGE: {
    status: 413,
    retryable: false,
    summary: 'The artifact decompresses to more than the decompressed size limit (decompression was stopped there).',
    hint: 'Include fewer or smaller files (leave out node_modules, caches and large assets); `svc deploy --dry-run` checks the limits locally.',
  },
  SVC_ARTIFACT_TOO_MANY_FILES: {
    status: 413,
    retryable: false,
    summary: 'The artifact has more files than the file count limit.',
    hint: 'Bundle the app or narrow the `include` paths; `svc deploy --dry-run` shows the file count.',
  },
  SVC_ARTIFACT_FILE_TOO_LARGE: {
    status: 413,
    retryable: false,
    summary: 'A file exceeds the per-file size limit.',
    hint: 'Leave the file named in the message out of the `include` paths (serve large assets from elsewhere).',
  },
  SVC_ARTIFACT_AGGREGATE_TOO_LARGE: {
    status: 413,
    retryable: false,
    summary: 'The files together exceed the aggregate size limit.',
    hint: 'Narrow the `include` paths or remove large files; `svc deploy --dry-run` shows the total size.',
  },
  // Artifact: structure and verification
  SVC_ARTIFACT_MALFORMED: {
    status: 400,
    retryable: false,
    summary: 'The artifact is not a gzip of an svc-deploy document (bad gzip, bad JSON, truncated or trailing data).',
    hint: 'Pack the artifact again with `svc deploy` (or `svc deploy --dry-run`) instead of editing or truncating it.',
  },
  SVC_ARTIFACT_UNSUPPORTED_PROTOCOL: {
    status: 422,
    retryable: false,
    summary: 'The artifact protocol or builder protocol is not one this svc understands (expected svc-deploy/1, svc-builder/1).',
    hint: 'Use a svc CLI of the same major version as the server.',
  },
  SVC_ARTIFACT_NOT_CANONICAL: {
    status: 422,
    retryable: false,
    summary: 'The artifact document is not in canonical form (key order, whitespace, sorting, base64 or config normalization differ).',
    hint: 'Pack the artifact with the svc CLI (`svc deploy`), which always writes canonical form.',
  },
  SVC_ARTIFACT_DIGEST_MISMATCH: {
    status: 422,
    retryable: false,
    summary: 'The SHA-256 of the artifact bytes does not match the digest sent with it.',
    hint: 'The upload was corrupted or altered; pack and upload again.',
  },
  SVC_ARTIFACT_FILE_DIGEST_MISMATCH: {
    status: 422,
    retryable: false,
    summary: 'A file content does not match its SHA-256 digest.',
    hint: 'The artifact was altered or corrupted; pack and upload it again with `svc deploy`.',
  },
  SVC_ARTIFACT_SIZE_MISMATCH: {
    status: 422,
    retryable: false,
    summary: 'A file content length does not match its declared size.',
    hint: 'The artifact was altered or corrupted; pack and upload it again with `svc deploy`.',
  },
  SVC_ARTIFACT_PATH_TRAVERSAL: {
    status: 422,
    retryable: false,
    summary: 'A path contains a ".." segment.',
    hint: 'Pack the artifact with `svc deploy`, which never writes ".." paths; do not hand-edit artifacts.',
  },
  SVC_ARTIFACT_ABSOLUTE_PATH: {
    status: 422,
    retryable: false,
    summary: 'A path is absolute.',
    hint: 'Pack the artifact with `svc deploy`, which writes relative paths only; do not hand-edit artifacts.',
  },
  SVC_ARTIFACT_PATH_INVALID: {
    status: 422,
    retryable: false,
    summary: 'A path is empty, too long, not NFC, or has empty/"." segments, backslashes or control characters.',
    hint: 'Rename the file named in the message to a short NFC name without backslashes or control characters.',
  },
  SVC_ARTIFACT_DUPLICATE_PATH: {
    status: 422,
    retryable: false,
    summary: 'The same path appears twice.',
    hint: 'Remove the duplicate (a path that is both a file and a directory, or listed twice) and pack again with `svc deploy`.',
  },
  SVC_ARTIFACT_PATH_NOT_INCLUDED: {
    status: 422,
    retryable: false,
    summary: 'A file lies outside the included paths of the configuration.',
    hint: "Add the file's directory to `include` in svc.deploy.json, or pack with `svc deploy` so only included paths are packed.",
  },
  SVC_ARTIFACT_ENTRY_MISSING: {
    status: 422,
    retryable: false,
    summary: 'The configured `entry` file is not in the artifact.',
    hint: 'Run the build before packing.',
  },
  SVC_ARTIFACT_FORBIDDEN_FILE: {
    status: 422,
    retryable: false,
    summary: 'A forbidden file (.env*, private key, credential file or version-control metadata) is included.',
    hint: 'Move it out of the included paths; credentials belong in `svc secrets`.',
  },
  SVC_ARTIFACT_SYMLINK: {
    status: 422,
    retryable: false,
    summary: 'A symbolic link is included (artifacts contain regular files only).',
    hint: 'Replace the link with a copy of the file or directory it points to, then pack again.',
  },
  SVC_ARTIFACT_SPECIAL_FILE: {
    status: 422,
    retryable: false,
    summary: 'A special file (FIFO, socket, device) is included.',
    hint: 'Remove the FIFO, socket or device file from the included paths, then pack again.',
  },
  SVC_ARTIFACT_BAD_MODE: {
    status: 422,
    retryable: false,
    summary: 'A file mode is not 0100644 or 0100755.',
    hint: 'Pack the artifact with `svc deploy`, which writes only these modes; do not hand-edit artifacts.',
  },
  SVC_ARTIFACT_TARGET_EXISTS: {
    status: 409,
    retryable: false,
    summary: 'The extraction target directory already exists.',
    hint: 'Remove the directory named in the message (it is left over from an earlier attempt) or extract elsewhere, then retry.',
  },
});
