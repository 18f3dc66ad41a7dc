#!/usr/bin/env bash
# The container image's steps, kept in one script so that what the image does is tested without a
# container runtime (test/e2e/image-script.test.ts runs it in a clean copy of the repository):
#
#   scripts/image.sh build            the web app's build, then production dependencies only (Node
#                                     itself comes from the base image)
#   scripts/image.sh start [command]  checks the build, then runs `node src/main.ts <command>` (with
#                                     the tracing bootstrap, src/observability/tracing.ts, loaded first)
#                                     (`serve` by default; `worker`, `migrate`, any operator command)
#   scripts/image.sh health           exit 0 when this container's /readyz answers 200 (HEALTHCHECK)
set -euo pipefail
cd "$(dirname "$0")/.."

fail() {
  echo "dbops image: $*" >&2
  exit 1
}

need_node_24() {
  command -v node >/dev/null || fail "node is not on PATH (the image is based on node:24)"
  local major
  major=$(node -p 'process.versions.node.split(".")[0]')
  [ "$major" -ge 24 ] || fail "Node.js 24 or newer is needed to run the TypeScript sources; this is $(node --version)"
}

build() {
  need_node_24
  # Everything first: the web app is built with Vite, a development dependency.
  npm ci --no-audit --no-fund
  # HOOK(web): the web application (web/, an npm workspace) is built here with the server's own
  # build function, which stamps the build with its sources' hash; the server then finds it fresh
  # and never needs Vite at run time.
  if [ -f web/package.json ]; then
    node --input-type=module -e '
      const { ensureWebBuild } = await import("./src/web/web-build.ts");
      const outcome = await ensureWebBuild({ log: (line) => console.log(line) });
      if (outcome === "unavailable") process.exit(1);'
    [ -f web/dist/index.html ] || fail "the web build finished without web/dist/index.html"
  fi
  # What runs needs no development dependency (Node itself comes from the base image).
  npm prune --omit=dev --no-audit --no-fund
}

start() {
  need_node_24
  [ -d node_modules/fastify ] || fail "dependencies are missing: run 'scripts/image.sh build' first"
  # A missing web build is an error at start, never a build at start: the image is what was tested.
  if [ -f web/package.json ] && [ ! -f web/dist/index.html ]; then
    fail "the web app is not built (web/dist/index.html is missing): build the image again, its build step runs 'scripts/image.sh build'"
  fi
  # The tracing bootstrap first: it does nothing unless OTEL_EXPORTER_OTLP_ENDPOINT is set.
  # Node's memory settings, as the npm scripts give them (docs/production.md, Memory).
  exec scripts/node-service.sh --import ./src/observability/tracing.ts src/main.ts "${@:-serve}"
}

health() {
  exec node -e '
    const port = process.env.PORT || "8000";
    fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2500) }).then(
      (answer) => process.exit(answer.status === 200 ? 0 : 1),
      () => process.exit(1),
    );'
}

case "${1:-}" in
  build) build ;;
  start) shift; start "$@" ;;
  health) health ;;
  *) fail "usage: scripts/image.sh build | start [command] | health" ;;
esac
