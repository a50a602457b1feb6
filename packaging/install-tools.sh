#!/usr/bin/env bash
# Installs the development tools eventsvc takes from the npm registry, pinned, into build/tools
# (not system-wide): Redocly CLI, the OpenAPI linter the tests run on docs/openapi.yaml.
# Needs node and npm (packaging/install-deps.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
redocly_version=1.34.5
tools=build/tools
if [[ -x "$tools/node_modules/.bin/redocly" ]] &&
  [[ "$("$tools/node_modules/.bin/redocly" --version 2>/dev/null)" == "$redocly_version" ]]; then
  exit 0
fi
echo "eventsvc: installing @redocly/cli@$redocly_version into $tools"
mkdir -p "$tools"
npm install --prefix "$tools" --no-audit --no-fund --no-save --loglevel=error \
  "@redocly/cli@$redocly_version" >/dev/null
