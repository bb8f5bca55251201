#!/usr/bin/env bash
# Prepares a Debian/Ubuntu host for svc's default app runner: every app runs in a bubblewrap sandbox
# with its own network namespace reached through slirp4netns (prlimit and setsid come with
# util-linux, which Debian always has). Without them svc refuses to start apps
# (SVC_SANDBOX_UNAVAILABLE) rather than run them unisolated. Idempotent: installs only what is
# missing, then proves that a sandbox can be created for an unprivileged uid, as svc will do.
# Needs root or sudo, and apt. Other choices (containers, or no isolation for trusted apps):
# docs/security.md.
set -euo pipefail

packages=(bubblewrap slirp4netns socat util-linux)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "setup-host: run as root or install sudo" >&2; exit 1; }
  SUDO="sudo"
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup-host: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "setup-host: ${packages[*]} already installed"
fi

# svc (as root) runs each project's apps under a uid of its own, so the sandbox must work for an
# unprivileged user: try the namespaces an app gets, as nobody.
probe=(bwrap --unshare-user --unshare-pid --unshare-ipc --unshare-uts --unshare-net --die-with-parent --ro-bind / / --proc /proc --dev /dev true)
if [ "$(id -u)" -eq 0 ]; then
  probe=(setpriv --reuid=65534 --regid=65534 --clear-groups "${probe[@]}")
fi
if ! err=$(cd / && "${probe[@]}" 2>&1); then
  cat >&2 <<MSG
setup-host: bubblewrap is installed but cannot create an app sandbox here: ${err}
  Allow unprivileged user namespaces (sysctl user.max_user_namespaces > 0; on Ubuntu also
  kernel.apparmor_restrict_unprivileged_userns=0), or run apps in containers (SVC_RUNNER=container).
  See docs/security.md.
MSG
  exit 1
fi
echo "setup-host: app sandbox works (bubblewrap $(bwrap --version | awk '{print $2}'), slirp4netns $(slirp4netns --version | awk 'NR==1{print $3}'))"
