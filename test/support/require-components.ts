// Suites that drive real host components (bwrap, podman, an image) skip with a warning on a
// developer machine that lacks them, but under CI (env CI set) a missing component is a failure:
// a green CI run must mean the isolation was really exercised, not silently skipped.
import { spawnSync } from 'node:child_process';

/** One real component: a name for messages and a probe that says what is wrong, or null when usable. */
export interface Component {
  name: string;
  probe(): string | null;
}

/** A component usable when `argv` runs and exits 0 within 30 s. */
export function commandComponent(name: string, argv: [string, ...string[]]): Component {
  return {
    name,
    probe() {
      const [file, ...args] = argv;
      const run = spawnSync(file, args, { encoding: 'utf8', timeout: 30_000 });
      if (run.error) return `${argv.join(' ')}: ${run.error.message}`;
      return run.status === 0 ? null : `${argv.join(' ')} exited with ${run.status ?? run.signal}: ${(run.stderr || run.stdout).trim().slice(0, 300)}`;
    },
  };
}

export interface ComponentGate {
  /** What is missing, or null. */
  missing: string | null;
  /** Pass to describe.skipIf: true only outside CI with something missing. */
  skip: boolean;
  /** Call in beforeAll: throws under CI when something is missing. */
  assertPresent(): void;
}

/** Probe every component for `suite`; outside CI, a missing one skips the suite with a warning. */
export function requireComponents(suite: string, components: Component[]): ComponentGate {
  const problems = components.flatMap((c) => {
    const problem = c.probe();
    return problem === null ? [] : [`${c.name} (${problem})`];
  });
  const missing = problems.length ? problems.join('; ') : null;
  const inCi = Boolean(process.env.CI);
  if (missing && !inCi) console.warn(`SKIPPING ${suite}: missing ${missing}`);
  return {
    missing,
    skip: missing !== null && !inCi,
    assertPresent() {
      if (missing) throw new Error(`${suite} needs ${missing}; under CI a missing component fails the run instead of skipping it`);
    },
  };
}

/** The default sandbox: bubblewrap confines the app, slirp4netns gives it a network of its own. */
export function sandboxComponents(): Component[] {
  return [commandComponent('bubblewrap', ['bwrap', '--version']), commandComponent('slirp4netns', ['slirp4netns', '--version'])];
}

/** Named network namespaces: `ip netns add` needs root (CAP_SYS_ADMIN) and kernel support, so probe by adding one. */
export function netnsComponent(): Component {
  return {
    name: 'network namespaces (ip netns)',
    probe() {
      const name = `svc-probe-${process.pid}`;
      const added = spawnSync('ip', ['netns', 'add', name], { encoding: 'utf8', timeout: 30_000 });
      if (added.error) return `ip netns add: ${added.error.message}`;
      if (added.status !== 0) return `ip netns add exited with ${added.status ?? added.signal}: ${added.stderr.trim().slice(0, 300)}`;
      spawnSync('ip', ['netns', 'delete', name], { timeout: 30_000 });
      return null;
    },
  };
}

/** Root: per-project uids, chown and tmpfs mounts need it (CI runs as root). */
export function rootComponent(): Component {
  return { name: 'root', probe: () => (process.getuid?.() === 0 ? null : `running as uid ${process.getuid?.()}`) };
}

/** Inside a test: skip with a warning when the host lacks `what`, but under CI fail instead. */
export function skipOrFail(ctx: { skip: (note: string) => void }, what: string): never {
  if (process.env.CI) throw new Error(`${what}; under CI a missing component fails the run instead of skipping it`);
  ctx.skip(what);
  throw new Error('unreachable: ctx.skip() ends the test');
}
