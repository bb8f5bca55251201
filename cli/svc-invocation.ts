// How to run svc again from the shell, for hints such as the "Next:" of `svc create`: plain `svc`
// when a `svc` is on PATH (a global install), otherwise through npm, which fetches the package by
// its scoped name (the plain name `svc` on the registry is someone else's program).
import { delimiter, join } from 'node:path';
import { isExecutable as executable } from '../src/core/find-executable.js';
import { PACKAGE_NAME } from '../src/core/package-name.js';

/** The npm form that works from any directory without an install. */
export const NPM_EXEC_SVC = `npm exec --package=${PACKAGE_NAME} -- svc`;

/** `svc` when PATH has one, else the npm exec form. `isExecutable` is passed in by tests. */
export function svcInvocation(pathVariable: string | undefined, isExecutable: (path: string) => boolean = executable): string {
  const dirs = (pathVariable ?? '').split(delimiter).filter(Boolean);
  return dirs.some((dir) => isExecutable(join(dir, 'svc'))) ? 'svc' : NPM_EXEC_SVC;
}
