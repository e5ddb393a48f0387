#!/usr/bin/env bash
# bench_sync.sh: a full iceberg_sync() of the billing sample against COPY of
# the same tables to /dev/null, measured in the same run.
#
#   bash bench/bench_sync.sh [CUSTOMERS]     (default 100000; subscriptions = 3x)
#
# Uses the server named by the PG* environment variables, or starts a
# throwaway cluster via scripts/cluster.sh (the extension must be installed:
# make install).  Prints seconds, rows/s, the ratio sync/COPY, the bytes
# written, and the sync worker's peak RSS (VmHWM, sampled while it runs).
set -euo pipefail
cd "$(dirname "$0")/.."

CUSTOMERS=${1:-100000}
RUNS=${BENCH_RUNS:-2}

if [ -z "${PGHOST:-}${PGPORT:-}${PGDATABASE:-}${PGSERVICE:-}" ] && [ -f scripts/cluster.sh ]; then
  # shellcheck source=scripts/cluster.sh
  source scripts/cluster.sh
  cluster_start >&2
fi
PSQL=(psql -X -q -A -t -v ON_ERROR_STOP=1)
WAREHOUSE=$(mktemp -d "${IE_SCRATCH:-/tmp}/ie_bench_wh.XXXXXX")
chmod 777 "$WAREHOUSE"
trap 'rm -rf "$WAREHOUSE"; declare -F cluster_stop >/dev/null && cluster_stop; true' EXIT

"${PSQL[@]}" -c 'CREATE EXTENSION IF NOT EXISTS iceberg_export' >/dev/null
have=$("${PSQL[@]}" -c "SELECT CASE WHEN to_regclass('billing.customers') IS NULL THEN -1 END")
if [ "$have" = "-1" ]; then
  "${PSQL[@]}" -f sample/billing_schema.sql >/dev/null
fi
if [ "$("${PSQL[@]}" -c 'SELECT count(*) FROM billing.customers')" != "$CUSTOMERS" ]; then
  echo "generating $CUSTOMERS customers ..." >&2
  "${PSQL[@]}" -v customers="$CUSTOMERS" -f sample/generate.sql >/dev/null
fi
"${PSQL[@]}" -c 'VACUUM ANALYZE' >/dev/null
"${PSQL[@]}" -c "DELETE FROM iceberg_export.destinations WHERE name = 'bench';
                 DELETE FROM iceberg_export.iceberg_tables WHERE catalog_name = 'bench'" >/dev/null
"${PSQL[@]}" -c "SELECT iceberg_export.create_destination('bench',
                   options => jsonb_build_object('warehouse', '$WAREHOUSE'),
                   retention_window_days => 0)" >/dev/null
rows=$("${PSQL[@]}" -c "SELECT sum(n) FROM (SELECT count(*) n FROM billing.customers UNION ALL
          SELECT count(*) FROM billing.subscriptions UNION ALL SELECT count(*) FROM billing.subscription_addons
          UNION ALL SELECT count(*) FROM billing.prices UNION ALL SELECT count(*) FROM billing.plans
          UNION ALL SELECT count(*) FROM billing.products UNION ALL SELECT count(*) FROM billing.features
          UNION ALL SELECT count(*) FROM billing.addons) s")

# sample_rss PIDFILE: prints the largest VmHWM (kB) of sync workers seen
sample_rss() {
  local peak=0 v
  while [ -f "$1" ]; do
    for p in $(pgrep -f 'iceberg_export sync' || true); do
      v=$(awk '/VmHWM/ {print $2}' "/proc/$p/status" 2>/dev/null || echo 0)
      [ -n "$v" ] && [ "$v" -gt "$peak" ] && peak=$v
    done
    sleep 0.05
  done
  echo "$peak"
}

best_sync=999999; best_copy=999999; peak=0; bytes=0
for i in $(seq "$RUNS"); do
  flag=$(mktemp); sample_rss "$flag" > "$flag.out" &
  t0=$(date +%s.%N)
  bytes=$("${PSQL[@]}" -c "SELECT bytes FROM iceberg_export.iceberg_sync('bench')")
  t1=$(date +%s.%N)
  rm -f "$flag"; wait
  p=$(cat "$flag.out"); rm -f "$flag.out"
  [ "$p" -gt "$peak" ] && peak=$p
  t2=$(date +%s.%N)
  "${PSQL[@]}" <<'SQL'
COPY billing.customers TO '/dev/null';
COPY billing.subscriptions TO '/dev/null';
COPY billing.subscription_addons TO '/dev/null';
COPY billing.prices TO '/dev/null';
COPY billing.plans TO '/dev/null';
COPY billing.products TO '/dev/null';
COPY billing.features TO '/dev/null';
COPY billing.addons TO '/dev/null';
SQL
  t3=$(date +%s.%N)
  s=$(echo "$t1 - $t0" | bc -l); c=$(echo "$t3 - $t2" | bc -l)
  echo "run $i: sync ${s}s copy ${c}s" >&2
  best_sync=$(echo "if ($s < $best_sync) $s else $best_sync" | bc -l)
  best_copy=$(echo "if ($c < $best_copy) $c else $best_copy" | bc -l)
done

printf 'bench_sync: %s customers, %s rows in 8 tables, best of %s runs\n' "$CUSTOMERS" "$rows" "$RUNS"
printf '  (a) iceberg_sync (local warehouse, zstd)   %8.3f s  %10.0f rows/s  %8.2f MB written\n' \
  "$best_sync" "$(echo "$rows / $best_sync" | bc -l)" "$(echo "$bytes / 1048576" | bc -l)"
printf '  (b) COPY each table TO /dev/null            %8.3f s  %10.0f rows/s\n' \
  "$best_copy" "$(echo "$rows / $best_copy" | bc -l)"
printf '  time ratio a/b = %.2f\n' "$(echo "$best_sync / $best_copy" | bc -l)"
printf '  sync worker peak RSS (VmHWM): %.1f MB\n' "$(echo "$peak / 1024" | bc -l)"
