# Sourced by lint and generators (from this directory): the Node.js check
# and the install of the pinned npm packages of package-lock.json.

# need_node stops the script unless Node.js >= 20.19 and npm are here
# (@redocly/cli 2 needs 20.19; the generators need less, see generators).
need_node() {
  if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)' 2>/dev/null; then
    echo "test/openapi: needs Node.js >= 20.19 and npm (found: $(node --version 2>/dev/null || echo none))" >&2
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
