#!/usr/bin/env bash
# Installs the system packages the test suite drives for real: Chromium (console and
# device-login browser tests), bubblewrap + slirp4netns + socat (the default sandboxed app runner, also what
# scripts/setup-host.sh installs), podman + runc (container runner), Caddy (edge proxy),
# nginx (ingress benchmark baseline), iproute2 + openssl (multi-host runner test with network
# namespaces and a throwaway TLS CA), docker.io + iptables (the swarm driver's real-engine tests).
# Idempotent; needs root (or sudo) and apt.
# dockerd is never left running: each swarm test starts its own inside a network namespace
# (test/support/swarm-engine.ts), so Docker's firewall rules stay off this machine.
set -euo pipefail

packages=(chromium bubblewrap slirp4netns socat uidmap podman runc catatonit fuse-overlayfs caddy nginx-light iproute2 ca-certificates openssl docker.io iptables)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  # Installing docker.io would start the host's own dockerd (docker0, iptables rules on the host):
  # a temporary policy-rc.d stops apt from starting services, and the units are left disabled.
  if [[ " ${missing[*]} " == *" docker.io "* ]] && [ ! -e /usr/sbin/policy-rc.d ]; then
    trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
    $SUDO chmod 755 /usr/sbin/policy-rc.d
  fi
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
  if [[ " ${missing[*]} " == *" docker.io "* ]] && [ -d /run/systemd/system ]; then
    $SUDO systemctl disable --now docker.service docker.socket >/dev/null 2>&1 || true
  fi
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
