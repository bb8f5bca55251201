#!/usr/bin/env bash
# Installs the system packages the test suite drives for real: Chromium (console and
# device-login browser tests), bubblewrap + slirp4netns + socat (the default sandboxed app runner, also what
# scripts/setup-host.sh installs), podman + runc (container runner), Caddy (edge proxy),
# nginx (ingress benchmark baseline), iproute2 + openssl (multi-host runner test with network
# namespaces and a throwaway TLS CA). Idempotent; needs root (or sudo) and apt.
set -euo pipefail

packages=(chromium bubblewrap slirp4netns socat uidmap podman runc catatonit fuse-overlayfs caddy nginx-light iproute2 ca-certificates openssl)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# podman on these machines: crun fails, so use runc; containers need explicit ulimits.
if command -v podman >/dev/null 2>&1; then
  conf=/etc/containers/containers.conf.d
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO mkdir -p "$conf"
  if [ ! -f "$conf/50-svc.conf" ]; then
    printf '[containers]\ndefault_ulimits = ["nofile=4096:4096", "nproc=1024:1024"]\n\n[engine]\nruntime = "runc"\n' | $SUDO tee "$conf/50-svc.conf" >/dev/null
  fi
fi
echo "test environment ready"
