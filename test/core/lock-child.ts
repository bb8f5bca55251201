// Child process for project-lock tests: takes a lock, reports it, releases on "release\n" from stdin.
import { ProjectLocks } from '../../src/core/project-lock.js';

const [dir, projectId, operation] = process.argv.slice(2) as [string, string, string];
const locks = new ProjectLocks({ dir, onStaleLockRecovered: (info) => process.stdout.write(`STALE ${JSON.stringify(info)}\n`) });
const handle = await locks.acquire(projectId, operation, { waitMs: 10_000 });
process.stdout.write(`LOCKED ${handle.holder.token}\n`);
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  if (chunk.includes('release')) {
    void handle.release().then(() => {
      process.stdout.write('RELEASED\n');
      process.exit(0);
    });
  }
});
