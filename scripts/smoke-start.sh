#!/usr/bin/env bash
# Smoke test of `npm start` as a new user runs it (used by .ci/run): a fresh DATA_DIR and free ports; the
# stack must answer /readyz, accept the demo workspace's test secret key, show Mailpit's inbox and both metrics
# URLs, and on a terminal's Ctrl-C stop the api and the worker before PostgreSQL, Temporal and Mailpit, leaving no
# process behind.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

data_dir="$(mktemp -d "${TMPDIR:-/tmp}/commerce-smoke-XXXXXX")"
out="$data_dir.log"
free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
export DATA_DIR="$data_dir" PORT="$(free_port)" EMBEDDED_POSTGRES_PORT="$(free_port)" TEMPORAL_DEV_PORT="$(free_port)" TEMPORAL_UI_PORT="$(free_port)" \
  MAILPIT_SMTP_PORT="$(free_port)" MAILPIT_UI_PORT="$(free_port)" PAYMENT_SANDBOX_PORT="$(free_port)" WORKER_HEALTH_PORT="$(free_port)" \
  METRICS_PORT="$(free_port)"
# No local trace viewer: its first start builds Jaeger from source, far longer than this smoke test waits (docs/tracing.md).
export OTEL_TRACES_EXPORTER=none
fail() {
  echo "[smoke] FAILED: $*" >&2
  echo "[smoke] --- npm start output ---" >&2
  tail -n 60 "$out" >&2 || true
  [[ -n "${pgid:-}" ]] && kill -KILL -- "-$pgid" 2>/dev/null || true
  exit 1
}

# Its own process group (setsid), so that what is left behind afterwards can be found by group.
setsid npm start >"$out" 2>&1 &
pid=$!
pgid=$pid
echo "[smoke] npm start (pid $pid) with DATA_DIR=$DATA_DIR, PORT=$PORT"

deadline=$((SECONDS + 420))
until [[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/readyz" || true)" == 200 && -s "$DATA_DIR/demo-workspace.json" ]] &&
  grep -q 'Commerce stack is up' "$out"; do
  kill -0 "$pid" 2>/dev/null || fail "npm start exited before it was ready"
  ((SECONDS < deadline)) || fail "not ready within 420s"
  sleep 1
done
echo "[smoke] /readyz answers 200"

key="$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).secretKey)' "$DATA_DIR/demo-workspace.json")"
status="$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $key" "http://127.0.0.1:$PORT/api/v1/account/api-keys")"
[[ "$status" == 200 ]] || fail "GET /api/v1/account/api-keys with the demo key answered $status"
echo "[smoke] the demo test secret key works"

grep -q "Mail inbox     http://localhost:$MAILPIT_UI_PORT" "$out" || fail "the banner does not show Mailpit's inbox"
grep -q "Payments       http://127.0.0.1:$PAYMENT_SANDBOX_PORT" "$out" || fail "the banner does not show the payment sandbox"
status="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PAYMENT_SANDBOX_PORT/v2/invoices")"
[[ "$status" == 401 ]] || fail "the payment sandbox answered $status (want 401 without a key)"
sandbox_key="$(sed -n 's/^ *test key  \(xnd_development_[A-Za-z0-9_-]*\)$/\1/p' "$out" | head -n 1)"
[[ -n "$sandbox_key" ]] || fail "the banner does not show the payment sandbox's test key"
status="$(curl -s -o /dev/null -w '%{http_code}' -u "$sandbox_key:" "http://127.0.0.1:$PAYMENT_SANDBOX_PORT/v2/invoices/")"
[[ "$status" == 200 ]] || fail "the payment sandbox answered $status to the banner's test key (want 200)"
status="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$MAILPIT_UI_PORT/api/v1/info")"
[[ "$status" == 200 ]] || fail "Mailpit's inbox API answered $status"
echo "[smoke] Mailpit's inbox answers"

grep -q "Worker health  http://127.0.0.1:$WORKER_HEALTH_PORT/readyz" "$out" || fail "the banner does not show the worker's probes"
status="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$WORKER_HEALTH_PORT/readyz")"
[[ "$status" == 200 ]] || fail "the worker's /readyz answered $status"
echo "[smoke] the worker's /readyz answers 200"

grep -q "Metrics        http://127.0.0.1:$METRICS_PORT/metrics" "$out" || fail "the banner does not show the API's metrics"
grep -q "http://127.0.0.1:$WORKER_HEALTH_PORT/metrics" "$out" || fail "the banner does not show the worker's metrics"
for url in "http://127.0.0.1:$METRICS_PORT/metrics" "http://127.0.0.1:$WORKER_HEALTH_PORT/metrics"; do
  curl -s "$url" | grep -q '^# TYPE commerce_http_requests_total counter$' || fail "$url does not serve the service's metrics"
done
echo "[smoke] the API's and the worker's /metrics answer"

# Ctrl-C as a terminal sends it: SIGINT to every process of the foreground group (npm, tsx, scripts/start.ts, the
# api and the worker). PostgreSQL, Temporal and Mailpit run in sessions of their own: the stack stops them only
# after the worker has drained, and says "<name> had already stopped" of one that went down with the Ctrl-C.
# npm itself, given SIGINT, always exits 130; the stack's own exit is read from its log.
kill -INT -- "-$pgid"
code=0
timeout 60 tail --pid="$pid" -f /dev/null || fail "npm start did not exit within 60s of SIGINT"
wait "$pid" || code=$?
[[ "$code" == 0 || "$code" == 130 ]] || fail "npm start exited with code $code after SIGINT"
deadline=$((SECONDS + 90))
until grep -q '^\[start\] stopped$' "$out"; do
  ((SECONDS < deadline)) || fail "the stack did not stop within 90s of Ctrl-C"
  sleep 1
done
sleep 1
# A zombie (state Z) has already exited: it only waits for its parent, or for init once the parent is gone, to
# read its status (tsx's esbuild helper can end up so in a container whose init does not reap). Anything else
# in the group is a process left running.
left=""
for p in $(pgrep -g "$pgid" || true); do
  state="$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null || true)"
  [[ -z "$state" || "$state" == Z ]] || left+=" $p($(tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null))"
done
[[ -z "$left" ]] || fail "processes left behind:$left"
# The servers out of the terminal's group: nothing listens on their ports any more.
for port in "$EMBEDDED_POSTGRES_PORT" "$TEMPORAL_DEV_PORT" "$MAILPIT_SMTP_PORT"; do
  ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || fail "a server still listens on port $port"
done
! grep -q 'had already stopped' "$out" || fail "a server stopped at Ctrl-C, before the worker had drained: $(grep 'had already stopped' "$out")"
grep -n '^\[start\] stopping' "$out" | head -n 1 | grep -q 'the api and the worker' || fail "the api and the worker were not stopped first"
! grep -q 'restarting in' "$out" || fail "a process was restarted during the run or the stop"
echo "[smoke] SIGINT: exit 0, nothing left behind"
rm -rf "$data_dir" "$out"
