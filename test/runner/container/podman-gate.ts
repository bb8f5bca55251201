// The gate every real-podman suite here passes: skipped with a warning on a machine without a working
// podman + runc, a failure under CI (a green CI run must mean the containers really ran).
import { commandComponent, requireComponents, type ComponentGate } from '../../support/require-components.js';

/** Probe `podman --runtime runc info` once for `suite`. */
export function podmanGate(suite: string): ComponentGate {
  return requireComponents(suite, [commandComponent('podman with runc', ['podman', '--runtime', 'runc', 'info', '--format', '{{.Host.OCIRuntime.Name}}'])]);
}
