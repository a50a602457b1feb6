#!/usr/bin/env bash
# Installs the Debian 12 packages eventsvc builds and runs with, when any is missing.
# Runs as root, or through sudo.
set -euo pipefail

packages=(
  build-essential cmake ccache
  libpoco-dev librocksdb-dev libyaml-cpp-dev
  libboost-json1.81-dev libboost1.81-dev
  libssl-dev libgtest-dev libjemalloc-dev zlib1g-dev
  prometheus-cpp-dev python3-prometheus-client
  clang libclang-rt-14-dev
  curl
  lintian adduser
  python3-jsonschema python3-yaml
  redis-server postgresql-15 libpq-dev haproxy
  chromium fonts-dejavu-core
)
# chromium: the console's browser tests (console/tests) drive Debian's, headless.
# node and npm build the console (console/build.sh) and run the OpenAPI linter
# (packaging/install-tools.sh); a machine that has them from elsewhere (a newer node with its own
# npm) keeps them.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi
if [[ "${1:-}" == "--bench" ]]; then
  # python3-xapian: the benchmark's search specialist (bench/anchors/xapian_anchor.py).
  packages+=(python3 python3-psycopg2 python3-pycurl python3-xapian openssl wamerican)
fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

echo "eventsvc: installing ${missing[*]}"
if [[ "$(id -u)" -eq 0 ]]; then
  run_as_root=()
elif command -v sudo >/dev/null 2>&1; then
  run_as_root=(sudo)
else
  echo "eventsvc: missing packages (${missing[*]}); run this script as root or install sudo" >&2
  exit 1
fi
"${run_as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${run_as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
