# Sourced by lint and generators (from this directory): the Node.js check
# and the install of the pinned npm packages of package-lock.json.

# need_node [MAJOR MINOR] stops the script unless Node.js >= MAJOR.MINOR
# (default 20.19: @redocly/cli 2 needs it; the generators need 22.18, see
# generators) and npm are here.
need_node() {
  local major=${1:-20} minor=${2:-19}
  if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); const [x, y] = process.argv.slice(1).map(Number); process.exit(a > x || (a === x && b >= y) ? 0 : 1)' "$major" "$minor" 2>/dev/null; then
    echo "test/openapi: needs Node.js >= $major.$minor and npm (found: $(node --version 2>/dev/null || echo none))" >&2
    exit 1
  fi
}

# npm_install runs npm ci when the lockfile changed since the last install
# (always on a fresh clone). Install scripts are not run: no package here
# needs one, and the only one in the tree is a usage-analytics hook.
npm_install() {
  if ! cmp -s package-lock.json node_modules/.installed-lock 2>/dev/null; then
    echo "== npm ci (test/openapi)"
    local start=$SECONDS
    npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
    cp package-lock.json node_modules/.installed-lock
    echo "   installed in $((SECONDS - start)) s"
  fi
}
