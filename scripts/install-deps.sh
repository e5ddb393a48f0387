#!/usr/bin/env bash
# install-deps.sh: installs everything iceberg_export needs on Debian 12 (run as root).
# Quick when all is already there: apt is only called for missing packages and
# npm only when the lock file changed since the last install.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  build-essential pkg-config
  postgresql-15 postgresql-client-15 postgresql-server-dev-15
  postgresql-15-pgtap postgresql-15-cron libtap-parser-sourcehandler-pgtap-perl
  libcurl4-openssl-dev libavro-dev libjansson-dev libzstd-dev libsnappy-dev
  libssl-dev zlib1g-dev uuid-dev
  bc procps                      # bench/ scripts
)
# Node.js 20 comes with the machine (with its own npm); Debian's packages
# are only a fallback where node is missing.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  APT_PACKAGES+=(nodejs npm)
fi

# One dpkg-query for all packages; a package it does not know is missing.
missing=()
installed=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${APT_PACKAGES[@]}" 2>/dev/null || true)
for p in "${APT_PACKAGES[@]}"; do
  grep -qx "$p installed" <<<"$installed" || missing+=("$p")
done

if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps: missing ${missing[*]}; run this script as root" >&2
    exit 1
  fi
  echo "install-deps: apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # The Debian package creates and starts a cluster on 5432; the tests use
  # their own throwaway cluster (scripts/cluster.sh) and leave that one alone.
fi

# Test readers from npm, pinned by test/interop/package-lock.json.
if [ -f test/interop/package-lock.json ]; then
  stamp=test/interop/node_modules/.lock-stamp
  if [ ! -f "$stamp" ] || ! cmp -s test/interop/package-lock.json "$stamp"; then
    echo "install-deps: npm ci in test/interop"
    (cd test/interop && npm ci --no-audit --no-fund --loglevel=error)
    cp test/interop/package-lock.json "$stamp"
  fi
fi
echo "install-deps: ok"
