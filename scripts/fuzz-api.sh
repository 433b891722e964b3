#!/usr/bin/env bash
# Bounded API fuzzing (about two minutes plus start-up): installs schemathesis into a cached virtualenv outside
# the clone, then runs scripts/fuzz-api.ts, which starts the stack and fails on any 5xx or schema mismatch.
# Needs node_modules and the provisioned Temporal CLI (scripts/provision.sh), as the test suite does.
#   FUZZ_SECONDS=120  time budget of schemathesis itself     FUZZ_SEED=n  reproduce a run
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

SCHEMATHESIS_VERSION=4.32.5
venv="${COMMERCE_TOOLS_DIR:-$HOME/.cache/commerce-tools}/schemathesis-$SCHEMATHESIS_VERSION"
if [[ ! -x "$venv/bin/schemathesis" ]]; then
  echo "== installing schemathesis $SCHEMATHESIS_VERSION into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi

SCHEMATHESIS="$venv/bin/schemathesis" exec npx tsx scripts/fuzz-api.ts "$@"
