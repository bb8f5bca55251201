// The control plane the placed-node suites run against, and their tear-down. Node and operation
// leases are short and retries quick, so an offline node or a lost exchange shows within seconds.
import { bootstrapAccount, type TestAccount } from '../../support/account.js';
import { startPlatform, type StartedPlatform } from '../../support/start-platform.js';
import { removeDataDir } from '../../releases/release-support.js';
import type { RunnerProcess } from './runner-processes.js';

/** A control plane with fast node leases and its first (admin) account. */
export async function startNodePlatform(): Promise<{ platform: StartedPlatform; account: TestAccount }> {
  const platform = await startPlatform({
    env: { SVC_LOG_LEVEL: 'warn', SVC_NODE_LEASE_MS: '3000', SVC_NODE_OPERATION_LEASE_MS: '10000', SVC_NODE_RETRY_DELAY_MS: '200' },
  });
  try {
    return { platform, account: await bootstrapAccount(platform.url) };
  } catch (error) {
    await platform.stop();
    throw error;
  }
}

/** Stop the suite's runners (agents, providers) before the platform, then remove its work directory. */
export async function stopNodeSuite(parts: {
  runners: readonly RunnerProcess[];
  platform?: StartedPlatform | undefined;
  work?: string | undefined;
}): Promise<void> {
  for (const runner of parts.runners) await runner.stop(30_000);
  await parts.platform?.stop();
  if (parts.work) await removeDataDir(parts.work);
}
