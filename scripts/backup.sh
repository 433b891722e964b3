#!/usr/bin/env bash
# Online backup of the service's two stores (docs/production.md, "Backups and restore"): the application database
# and Temporal's persistence (its main and visibility databases), as pg_dump custom-format files in one directory
# with a manifest.
#
#   DATABASE_URL=postgres://commerce@db/commerce \
#   TEMPORAL_DATABASE_URL=postgres://temporal@temporal-db/temporal \
#   TEMPORAL_VISIBILITY_DATABASE_URL=postgres://temporal@temporal-db/temporal_visibility \
#   scripts/backup.sh /backups/2026-11-28T0100
#
# Needs only PostgreSQL's client tools (psql, pg_dump) of the servers' major version or newer (PG_BIN names their
# directory when they are not on PATH); keep passwords in ~/.pgpass rather than the URLs, which the process list shows.
#
# Order is the point. Temporal's two snapshots are taken first, back to back (exported snapshots, held open while
# pg_dump reads them), then the application's: the application database is never older than Temporal's state, which
# is the safe direction (every workflow Temporal knows has its rows; what Temporal lost the start relay re-creates).
# The manifest's temporal_snapshot_not_before, read from the application database's clock before Temporal's
# snapshots, tells restore.sh which recorded starts and published events to send again.
set -euo pipefail

# shellcheck source=lib/backup-args.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/backup-args.sh" "$@"
PSQL="$(bin psql)"
PG_DUMP="$(bin pg_dump)"
if [[ -e "$dir" && -n "$(ls -A "$dir")" ]]; then
  echo "backup: $dir exists and is not empty; each backup gets a directory of its own" >&2
  exit 1
fi
mkdir -p "$dir"
work="$(mktemp -d "${TMPDIR:-/tmp}/commerce-backup-XXXXXX")"
holders=()
cleanup() {
  for pid in "${holders[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

log() { echo "[backup] $*" >&2; }
query() { "$PSQL" -X -A -t -q -v ON_ERROR_STOP=1 -d "$1" -c "$2"; }

# Opens a REPEATABLE READ transaction on $2 in a psql kept running and exports its snapshot: sets ${1}_snapshot to
# its name and ${1}_fd to the psql's input, which release_snapshots closes; until then the snapshot stays importable.
hold_snapshot() {
  local name="$1" url="$2" in="$work/$1.in" out="$work/$1.out" fd_in fd_out snapshot=''
  mkfifo "$in" "$out"
  "$PSQL" -X -A -t -q -v ON_ERROR_STOP=1 -d "$url" <"$in" >"$out" 2>"$work/$name.err" &
  holders+=("$!")
  exec {fd_in}>"$in"
  exec {fd_out}<"$out"
  echo 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SELECT pg_export_snapshot();' >&"$fd_in"
  if ! read -r -t 60 snapshot <&"$fd_out" || [[ -z "$snapshot" ]]; then
    echo "backup: could not export a snapshot of $name: $(cat "$work/$name.err")" >&2
    exit 1
  fi
  printf -v "${name}_snapshot" '%s' "$snapshot"
  printf -v "${name}_fd" '%s' "$fd_in"
}
release_snapshots() {
  local fd
  for fd in "$@"; do
    echo 'COMMIT;' >&"$fd"
    exec {fd}>&-
  done
  for pid in "${holders[@]}"; do wait "$pid" || true; done
  holders=()
}

started_at="$(query "$DATABASE_URL" "SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')")"
# Visibility first, then the main store, milliseconds apart: visibility may then miss the few records written in
# between, which the next change of those workflows (or their retention) rewrites; the reverse would leave records
# of workflows the main store does not have.
hold_snapshot visibility "$TEMPORAL_VISIBILITY_DATABASE_URL"
hold_snapshot temporal "$TEMPORAL_DATABASE_URL"
log "Temporal snapshots exported ($temporal_snapshot, $visibility_snapshot); the application's is taken after them"

dump() {
  local name="$1" url="$2"
  shift 2
  if ! "$PG_DUMP" --format=custom --file="$dir/$name.dump" --dbname="$url" "$@" 2>"$work/$name.dump.err"; then
    echo "backup: pg_dump of $name failed: $(cat "$work/$name.dump.err")" >&2
    return 1
  fi
}
# cluster_membership is the liveness table of the Temporal hosts running now: a restored cluster must not try to
# join them, so its rows are left out (its definition is kept).
dump temporal "$TEMPORAL_DATABASE_URL" --snapshot="$temporal_snapshot" --exclude-table-data=cluster_membership &
temporal_dump=$!
dump temporal_visibility "$TEMPORAL_VISIBILITY_DATABASE_URL" --snapshot="$visibility_snapshot" &
visibility_dump=$!
dump commerce "$DATABASE_URL" &
commerce_dump=$!
failed=0
for pid in "$temporal_dump" "$visibility_dump" "$commerce_dump"; do wait "$pid" || failed=1; done
release_snapshots "$temporal_fd" "$visibility_fd"
((failed == 0)) || exit 1

server_version() { query "$1" 'SHOW server_version_num'; }
{
  echo "format=1"
  echo "temporal_snapshot_not_before=$started_at"
  echo "finished_at=$(query "$DATABASE_URL" "SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')")"
  echo "commerce_last_migration=$(query "$DATABASE_URL" 'SELECT max(name) FROM schema_migrations')"
  echo "temporal_schema_version=$(query "$TEMPORAL_DATABASE_URL" 'SELECT curr_version FROM schema_version LIMIT 1')"
  echo "temporal_visibility_schema_version=$(query "$TEMPORAL_VISIBILITY_DATABASE_URL" 'SELECT curr_version FROM schema_version LIMIT 1')"
  echo "temporal_history_shards=$(query "$TEMPORAL_DATABASE_URL" 'SELECT count(*) FROM shards')"
  echo "commerce_server_version_num=$(server_version "$DATABASE_URL")"
  echo "temporal_server_version_num=$(server_version "$TEMPORAL_DATABASE_URL")"
  (cd "$dir" && sha256sum commerce.dump temporal.dump temporal_visibility.dump | sed -E 's/^([0-9a-f]+)  (.*)\.dump$/sha256_\2=\1/')
} >"$dir/manifest"
log "wrote $dir: commerce.dump, temporal.dump, temporal_visibility.dump, manifest ($(du -sh "$dir" | cut -f1))"
