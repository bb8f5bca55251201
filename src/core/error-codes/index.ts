// The one registry of stable SVC_* codes. Each area keeps its table in its own file
// (so parallel work does not collide); this index merges them and rejects duplicates.
import type { ErrorCodeDefinition } from './define.js';
import { generalCodes } from './general.js';
import { cliRemoteCodes } from './cli-remote.js';
import { cliCodes } from './cli.js';
import { cliDeployCodes } from './cli-deploy.js';
import { releaseCodes } from './releases.js';
import { identityCodes } from './identity.js';
import { projectsCodes } from './projects.js';
import { auditCodes } from './audit.js';
import { coreServerCodes } from './core-server.js';
import { artifactCodes } from './artifacts.js';
import { recoveryCodes } from './recovery.js';
import { ingressCodes } from './ingress.js';
import { secretsCodes } from './secrets.js';
import { backupsCodes } from './backups.js';
import { domainsCodes } from './domains.js';
import { lifecycleCodes } from './lifecycle.js';
import { githubCodes } from './github.js';
import { oidcCodes } from './oidc.js';
import { runnerCodes } from './runner.js';
import { runnerAgentCodes } from './runner-agent.js';
import { canaryCodes } from './canary.js';
import { opsCodes } from './ops.js';
import { nodesCodes } from './nodes.js';
import { sandboxCodes } from './sandbox.js';
import { faultCodes } from './faults.js';
import { edgeCodes } from './edge.js';
import { swarmReleaseCodes } from './swarm-release.js';
import { swarmDriverCodes } from './swarm-driver.js';
import { previewsCodes } from './previews.js';

const tables = [
  generalCodes,
  cliRemoteCodes,
  releaseCodes,
  cliCodes,
  identityCodes,
  projectsCodes,
  auditCodes,
  coreServerCodes,
  artifactCodes,
  recoveryCodes,
  ingressCodes,
  cliDeployCodes,
  secretsCodes,
  backupsCodes,
  domainsCodes,
  lifecycleCodes,
  githubCodes,
  oidcCodes,
  canaryCodes,
  runnerCodes,
  runnerAgentCodes,
  opsCodes,
  nodesCodes,
  sandboxCodes,
  faultCodes,
  edgeCodes,
  swarmReleaseCodes,
  previewsCodes,
  swarmDriverCodes,
] as const;

type Merge<T extends readonly object[]> = T extends readonly [infer H, ...infer R extends readonly object[]] ? H & Merge<R> : unknown;

/** Every error code svc can return, with status, retryability and summary. */
export const errorCodes = mergeTables(tables) as Merge<typeof tables> & Record<string, ErrorCodeDefinition>;

/** A stable error code string such as `SVC_ARTIFACT_DIGEST_MISMATCH`. */
export type ErrorCode = keyof Merge<typeof tables> & string;

function mergeTables(list: readonly Record<string, ErrorCodeDefinition>[]): Record<string, ErrorCodeDefinition> {
  const merged: Record<string, ErrorCodeDefinition> = {};
  for (const table of list) {
    for (const [code, def] of Object.entries(table)) {
      if (code in merged) throw new Error(`duplicate error code ${code}`);
      merged[code] = def;
    }
  }
  return merged;
}
