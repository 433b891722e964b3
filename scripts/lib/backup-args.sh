# Sourced by scripts/backup.sh and scripts/restore.sh with their arguments: the one backup directory they take, the
# three database URLs they need, and `bin` to find PostgreSQL's client tools (PG_BIN, else PATH). Sets `dir` and
# `script` (the caller's name, for its messages).
script="$(basename "$0" .sh)"
usage() {
  echo "usage: DATABASE_URL=… TEMPORAL_DATABASE_URL=… TEMPORAL_VISIBILITY_DATABASE_URL=… $0 <backup directory>" >&2
  exit 2
}
[[ $# -eq 1 ]] || usage
dir="$1"
for var in DATABASE_URL TEMPORAL_DATABASE_URL TEMPORAL_VISIBILITY_DATABASE_URL; do
  [[ -n "${!var:-}" ]] || { echo "$script: $var is not set" >&2; usage; }
done
bin() { if [[ -n "${PG_BIN:-}" ]]; then echo "$PG_BIN/$1"; else command -v "$1" || { echo "$script: $1 not found (install PostgreSQL's client tools or set PG_BIN)" >&2; exit 1; }; fi; }
