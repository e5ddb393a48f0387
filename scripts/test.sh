#!/usr/bin/env bash
# test.sh: runs every test of iceberg_export (the one test command; CI runs it).
#
#   bash scripts/test.sh                  deps, build, install, then all stages
#   bash scripts/test.sh regress|pgtap|interop ...   only the stages named
#
# Stages run against a throwaway cluster (scripts/cluster.sh):
#   regress  pg_regress over sql/*.sql (not iceberg_export--*) against expected/
#   pgtap    pg_prove over test/pgtap/*.sql in database ie_pgtap
#   interop  node --test over test/interop/*.test.mjs (independent readers)
# The build uses ASSERTS=1 (-DUSE_ASSERT_CHECKING) unless ASSERTS=0 is set.
# The last line is "N passed, N failed", summed over stages; a stage that
# crashes or times out counts as at least one failure. Exit status 1 if
# anything failed.
# shellcheck disable=SC2317  # stage_* functions are called as "stage_$s"
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

ALL_STAGES=(regress pgtap interop)
if [ $# -gt 0 ]; then
  STAGES=("$@")
  for s in "${STAGES[@]}"; do
    case " ${ALL_STAGES[*]} " in *" $s "*) ;; *)
      echo "usage: bash scripts/test.sh [regress|pgtap|interop]..." >&2; exit 2 ;;
    esac
  done
else
  STAGES=("${ALL_STAGES[@]}")
fi

PASSED=0
FAILED=0
SUMMARY=()
LOGDIR=$(mktemp -d /tmp/iceberg_export_logs.XXXXXX)
PG_REGRESS=${PG_REGRESS:-/usr/lib/postgresql/15/lib/pgxs/src/test/regress/pg_regress}
IE_PGBIN=${IE_PGBIN:-/usr/lib/postgresql/15/bin}
export ASSERTS=${ASSERTS:-1}

# banner prints a stage heading.
banner() {
  printf '\n======== %s ========\n' "$*"
}

# record adds one stage's counts to the totals.
record() {
  local stage=$1 pass=$2 fail=$3 note=${4:-}
  PASSED=$((PASSED + pass))
  FAILED=$((FAILED + fail))
  SUMMARY+=("$(printf '%-8s %4d passed, %4d failed  %s' "$stage" "$pass" "$fail" "$note")")
}

# run_logged runs a command with a time limit, shows its output and keeps it
# in $LOGDIR/<name>.log; it returns the command's exit status.
run_logged() {
  local name=$1 limit=$2
  shift 2
  timeout --kill-after=30 "$limit" "$@" 2>&1 | tee "$LOGDIR/$name.log"
  local rc=${PIPESTATUS[0]}
  [ "$rc" -eq 124 ] && echo "test.sh: $name timed out after ${limit}s"
  return "$rc"
}

# finish stops the cluster, prints the summary and exits.
finish() {
  if declare -F cluster_stop >/dev/null; then
    if [ "$FAILED" -gt 0 ] && [ -s "${IE_CLUSTER_DIR:-/nonexistent}/postgres.log" ]; then
      banner "server log (last 60 lines)"
      tail -n 60 "$IE_CLUSTER_DIR/postgres.log"
    fi
    cluster_stop
  fi
  rm -rf "$LOGDIR"
  banner summary
  printf '%s\n' "${SUMMARY[@]}"
  echo "$PASSED passed, $FAILED failed"
  [ "$FAILED" -eq 0 ]
  exit
}

# ---------------------------------------------------------------- deps, build
banner "install-deps"
if ! run_logged deps 1800 bash scripts/install-deps.sh; then
  record deps 0 1 "scripts/install-deps.sh failed"
  finish
fi

banner "build (make -j2 ASSERTS=$ASSERTS && make install)"
if ! run_logged build 900 bash -c 'make -j2 -s && make -s install' >/dev/null; then
  cat "$LOGDIR/build.log"
  record build 0 1 "make failed"
  finish
fi
echo "build: ok ($(find src -name '*.c' | wc -l) C files, installed into $("$IE_PGBIN/pg_config" --pkglibdir))"

# ---------------------------------------------------------------- cluster
# shellcheck source=scripts/cluster.sh
source scripts/cluster.sh
banner "cluster"
if ! cluster_start; then
  record cluster 0 1 "throwaway cluster did not start"
  finish
fi
# cluster_start sets an EXIT trap; finish stops the cluster itself.

# ---------------------------------------------------------------- regress
stage_regress() {
  local tests pass fail rc
  tests=$(make -s print-regress)
  if [ -z "$tests" ]; then record regress 0 0 "no tests"; return; fi
  rm -rf results regression.diffs regression.out
  # shellcheck disable=SC2086
  run_logged regress 900 "$PG_REGRESS" --inputdir=. --bindir="$IE_PGBIN" \
    --host="$PGHOST" --port="$PGPORT" --user=postgres --dbname=contrib_regression \
    $tests
  rc=$?
  # PG15 prints one line per test: "test NAME ... ok|FAILED|failed (ignored)"
  # (parallel groups indent the name instead of "test"), then
  # "All N tests passed." or "M of N tests failed."
  pass=$(grep -cE '^(test |     )\S+ +\.\.\. ok' "$LOGDIR/regress.log")
  fail=$(grep -cE '^(test |     )\S+ +\.\.\. (FAILED|failed)' "$LOGDIR/regress.log")
  if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then fail=1; fi
  if [ -s regression.diffs ]; then
    banner "regression.diffs"
    cat regression.diffs
  fi
  record regress "$pass" "$fail" "$([ "$rc" -eq 0 ] || echo "pg_regress exit $rc")"
}

# ---------------------------------------------------------------- pgtap
stage_pgtap() {
  local files pass fail total rc
  files=(test/pgtap/*.sql)
  if [ ! -e "${files[0]}" ]; then record pgtap 0 0 "no tests"; return; fi
  if ! PGOPTIONS='-c client_min_messages=warning' psql -X -q -v ON_ERROR_STOP=1 -d postgres \
       -c 'DROP DATABASE IF EXISTS ie_pgtap' -c 'CREATE DATABASE ie_pgtap' \
    || ! psql -X -q -v ON_ERROR_STOP=1 -d ie_pgtap -c 'CREATE EXTENSION pgtap'; then
    record pgtap 0 1 "could not prepare database ie_pgtap"
    return
  fi
  PGOPTIONS='-c client_min_messages=warning' \
    run_logged pgtap 600 pg_prove --host "$PGHOST" --port "$PGPORT" --username postgres \
      --dbname ie_pgtap "${files[@]}"
  rc=$?
  # pg_prove (TAP::Harness): "Files=F, Tests=T, ..." then "Result: PASS|FAIL";
  # failing files are listed as "FILE (Wstat: W [(exited N)] Tests: T Failed: K)".
  total=$(sed -nE 's/^Files=[0-9]+, Tests=([0-9]+),.*/\1/p' "$LOGDIR/pgtap.log" | tail -n1)
  total=${total:-0}
  # A listed file with "Failed: 0" failed otherwise (bad plan, psql error):
  # it counts as one failure.
  fail=$(sed -nE 's/.*\(Wstat: [0-9]+( \([^)]*\))? Tests: [0-9]+ Failed: ([0-9]+)\).*/\2/p' "$LOGDIR/pgtap.log" \
         | awk '{s += $1} END {print s + 0}')
  pass=$((total - fail))
  fail=$((fail + $(grep -cE '\(Wstat: [0-9]+( \([^)]*\))? Tests: [0-9]+ Failed: 0\)' "$LOGDIR/pgtap.log")))
  [ "$pass" -lt 0 ] && pass=0
  if { [ "$rc" -ne 0 ] || ! grep -q '^Result: PASS' "$LOGDIR/pgtap.log"; } && [ "$fail" -eq 0 ]; then
    fail=1
  fi
  record pgtap "$pass" "$fail" "$([ "$rc" -eq 0 ] || echo "pg_prove exit $rc")"
}

# ---------------------------------------------------------------- interop
stage_interop() {
  local files pass fail cancelled rc
  files=("${IE_INTEROP_DIR:-test/interop}"/*.test.mjs)
  if [ ! -e "${files[0]}" ]; then record interop 0 0 "no tests"; return; fi
  # umask 000: directories the tests create under IE_SCRATCH stay writable
  # for the server, which runs as another OS user.
  (umask 000; run_logged interop 2400 node --test --test-concurrency=1 \
     --test-reporter=spec "${files[@]}")
  rc=$?
  # The spec reporter ends with "ℹ tests N", "ℹ pass N", "ℹ fail N",
  # "ℹ cancelled N" (the TAP reporter prints "# pass N" etc.).
  pass=$(sed -nE 's/^(ℹ|#) pass ([0-9]+)$/\2/p' "$LOGDIR/interop.log" | tail -n1)
  fail=$(sed -nE 's/^(ℹ|#) fail ([0-9]+)$/\2/p' "$LOGDIR/interop.log" | tail -n1)
  cancelled=$(sed -nE 's/^(ℹ|#) cancelled ([0-9]+)$/\2/p' "$LOGDIR/interop.log" | tail -n1)
  pass=${pass:-0}
  fail=$(( ${fail:-0} + ${cancelled:-0} ))
  if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then fail=1; fi
  record interop "$pass" "$fail" "$([ "$rc" -eq 0 ] || echo "node exit $rc")"
}

for s in "${STAGES[@]}"; do
  banner "$s"
  "stage_$s"
done
finish
