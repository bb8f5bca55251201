// The gate every real-podman suite here passes: skipped with a warning on a machine without a working
// podman + runc, a failure under CI (a green CI run must mean the containers really ran).
import { commandComponent, requireComponents, type Component, type ComponentGate } from '../../support/require-components.js';

/** `podman --runtime runc info` exits 0: podman and runc both work here. */
export function podmanComponent(): Component {
  return commandComponent('podman with runc', ['podman', '--runtime', 'runc', 'info', '--format', '{{.Host.OCIRuntime.Name}}']);
}

/** Probe podman once for `suite`. */
export function podmanGate(suite: string): ComponentGate {
  return requireComponents(suite, [podmanComponent()]);
}
