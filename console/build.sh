#!/usr/bin/env bash
# Builds the console into the directory $1 (the build runs it; the server embeds what it writes):
# installs the npm packages of package-lock.json when they changed, type-checks, bundles.
set -euo pipefail
out="$1"
cd "$(dirname "$0")"
if ! cmp -s package-lock.json node_modules/.installed-package-lock.json; then
  echo "eventsvc: installing the console's npm packages (console/package-lock.json)"
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
  cp package-lock.json node_modules/.installed-package-lock.json
fi
node_modules/.bin/tsc --noEmit
EVENTSVC_CONSOLE_OUT="$out" node_modules/.bin/vite build --logLevel warn
