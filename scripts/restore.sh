#!/usr/bin/env bash
# Restores a backup made by scripts/backup.sh into empty databases (docs/production.md, "Backups and restore"):
#
#   DATABASE_URL=… TEMPORAL_DATABASE_URL=… TEMPORAL_VISIBILITY_DATABASE_URL=… scripts/restore.sh /backups/2026-11-28T0100
#
# Each URL names the database to restore into: created when missing (through the server's `postgres` database),
# refused when it holds any table, so a restore never writes over live data. Nothing of the service may run against
# them meanwhile: start Temporal, then the worker and the api, only once this has finished.
#
# After the application database is back, the recorded workflow starts and the outbox events that were sent from
# REDRIVE_WINDOW (a PostgreSQL interval, default 15 minutes) before Temporal's snapshot onwards are marked pending
# again, so the worker's relays send them once more: Temporal's copy may predate them, and sending one again is a
# no-op when Temporal has it (every such start is idempotent, docs/decisions/temporal.md).
#
# RESTORE_JOBS > 1 restores each database with that many parallel jobs (faster, but a failure leaves a partial
# database to drop before trying again); the default restores each in one transaction. PG_BIN as in backup.sh.
set -euo pipefail

# shellcheck source=lib/backup-args.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/backup-args.sh" "$@"
PSQL="$(bin psql)"
PG_RESTORE="$(bin pg_restore)"
jobs="${RESTORE_JOBS:-1}"
window="${REDRIVE_WINDOW:-15 minutes}"

log() { echo "[restore] $*" >&2; }
fail() {
  echo "restore: $*" >&2
  exit 1
}
query() { "$PSQL" -X -A -t -q -v ON_ERROR_STOP=1 -d "$1" -c "$2"; }

manifest="$dir/manifest"
[[ -f "$manifest" ]] || fail "$manifest is missing: not a backup made by scripts/backup.sh"
manifest_value() { sed -n "s/^$1=//p" "$manifest"; }
[[ "$(manifest_value format)" == 1 ]] || fail "$manifest: unknown format"
cutoff="$(manifest_value temporal_snapshot_not_before)"
[[ -n "$cutoff" ]] || fail "$manifest has no temporal_snapshot_not_before"
for name in commerce temporal temporal_visibility; do
  expected="$(manifest_value "sha256_$name")"
  actual="$(sha256sum "$dir/$name.dump" | cut -d' ' -f1)"
  [[ -n "$expected" && "$expected" == "$actual" ]] || fail "$dir/$name.dump does not match the manifest's checksum"
done

# Creates the database a URL names when it does not exist; refuses one that holds any relation of its own.
prepare() {
  local url="$1" server database
  if [[ "$url" =~ ^(postgres(ql)?://[^/?]*)/([^?]+)(\?.*)?$ ]]; then
    server="${BASH_REMATCH[1]}/postgres${BASH_REMATCH[4]}"
    database="${BASH_REMATCH[3]}"
    if [[ -z "$(query "$server" "SELECT 1 FROM pg_database WHERE datname = '${database//\'/\'\'}'")" ]]; then
      log "creating database $database"
      query "$server" "CREATE DATABASE \"${database//\"/\"\"}\""
    fi
  fi
  local relations
  relations="$(query "$url" "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                             WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_to%' AND n.nspname NOT LIKE 'pg\_temp%'")"
  [[ "$relations" == 0 ]] || fail "the database of ${url%%\?*} is not empty ($relations relations): restore only into empty databases"
}

restore_one() {
  local name="$1" url="$2" mode=(--single-transaction)
  if ((jobs > 1)); then mode=(--jobs="$jobs"); fi
  "$PG_RESTORE" --exit-on-error --no-owner --no-privileges "${mode[@]}" --dbname="$url" "$dir/$name.dump"
  query "$url" 'ANALYZE'
  log "restored $name"
}

prepare "$DATABASE_URL"
prepare "$TEMPORAL_DATABASE_URL"
prepare "$TEMPORAL_VISIBILITY_DATABASE_URL"
log "restoring $dir (taken from $(manifest_value temporal_snapshot_not_before) to $(manifest_value finished_at))"
restore_one commerce "$DATABASE_URL" &
commerce=$!
restore_one temporal "$TEMPORAL_DATABASE_URL" &
temporal=$!
restore_one temporal_visibility "$TEMPORAL_VISIBILITY_DATABASE_URL" &
visibility=$!
failed=0
for pid in "$commerce" "$temporal" "$visibility"; do wait "$pid" || failed=1; done
((failed == 0)) || fail "a restore failed (above); drop the databases it wrote to and run it again"

# Starts and fan-outs sent near or after Temporal's snapshot may be missing from it: pending again, the worker's start
# and outbox relays send them once more when it starts.
redriven="$(query "$DATABASE_URL" "
  WITH since AS (SELECT '$cutoff'::timestamptz - '$window'::interval AS t),
       starts AS (UPDATE workflow_starts SET started_at = NULL, next_attempt_at = now()
                   WHERE started_at >= (SELECT t FROM since) RETURNING 1),
       events AS (UPDATE events SET published_at = NULL
                   WHERE published_at >= (SELECT t FROM since) RETURNING 1)
  SELECT (SELECT count(*) FROM starts) || ' workflow starts, ' || (SELECT count(*) FROM events) || ' outbox events'")"
log "marked pending again, to be sent once more by the worker's relays: $redriven"
log "done. Start Temporal on the restored databases (same NUM_HISTORY_SHARDS: $(manifest_value temporal_history_shards)), then the migrations, the worker and the api."
