#!/usr/bin/env bash
# Builds the first version of the pool (commit 473fd60, before hedging, health, coalescing,
# batching, fleet and observers) into .first-version/, for the everyday bench to run it beside
# raw undici and today's pool in the same harness:
#   scripts/first-version.sh && npm run bench -- --only everyday --first-version .first-version
# Needs the git history (a clone, not the npm tarball); uses this checkout's node_modules.
set -euo pipefail
cd "$(dirname "$0")/.."
FIRST=473fd60
DIR=.first-version
if [ ! -d "$DIR" ]; then
  git worktree add --detach "$DIR" "$FIRST"
fi
ln -sfn "$PWD/node_modules" "$DIR/node_modules"
(cd "$DIR" && npx tsc -p tsconfig.build.json)
echo "first version built in $DIR/dist"
