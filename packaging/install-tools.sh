#!/usr/bin/env bash
# Installs the development tools eventsvc takes from the npm registry into build/tools (not
# system-wide), exactly as packaging/tools/package-lock.json pins them: Redocly CLI, the OpenAPI
# linter the tests run on docs/openapi.yaml. Needs node and npm (packaging/install-deps.sh
# installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
tools=build/tools
lock=packaging/tools/package-lock.json
# Installed from this very lockfile already: nothing to do.
if [[ -x "$tools/node_modules/.bin/redocly" ]] && cmp -s "$lock" "$tools/package-lock.json"; then
  exit 0
fi
echo "eventsvc: installing the tools of $lock into $tools"
mkdir -p "$tools"
cp packaging/tools/package.json "$lock" "$tools/"
npm ci --prefix "$tools" --no-audit --no-fund --loglevel=error >/dev/null
