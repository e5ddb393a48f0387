#!/usr/bin/env bash
# bench_write_parquet.sh: iceberg_export.write_parquet against two baselines
# measured in the same run, on N rows of bench/gen_subscriptions.sql.
#
#   bash bench/bench_write_parquet.sh [N]        (default N = 100000)
#
#   (a) SELECT * FROM iceberg_export.write_parquet('SELECT * FROM bench_subscriptions', FILE)
#   (b) COPY (SELECT * FROM bench_subscriptions) TO '/dev/null'
#   (c) COPY (SELECT * FROM bench_subscriptions) TO STDOUT (FORMAT csv)
#         | DuckDB (threads = 1) writing Parquet with zstd (bench/csv_to_parquet.mjs)
# Each runs BENCH_RUNS times (default 2); the best time counts.  (a) and (b)
# are timed inside the backend (clock_timestamp()), (c) end to end in the
# shell, node and DuckDB start-up included.  Also prints the backend's peak
# RSS (VmHWM) after (a) and after (b).
#
# Uses the server named by the PG* environment variables; when none is set
# and scripts/cluster.sh exists, starts a throwaway cluster (the extension
# must be installed: make install).  Needs a superuser (COPY to a file,
# pg_read_file of /proc).  Files go to IE_SCRATCH (default /tmp) and are
# removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${1:-100000}
RUNS=${BENCH_RUNS:-2}

if [ -z "${PGHOST:-}${PGPORT:-}${PGDATABASE:-}${PGSERVICE:-}" ] && [ -f scripts/cluster.sh ]; then
  # shellcheck source=scripts/cluster.sh
  source scripts/cluster.sh
  cluster_start >&2
fi

PSQL=(psql -X -q -A -t -v ON_ERROR_STOP=1)
OUTDIR=$(mktemp -d "${IE_SCRATCH:-/tmp}/ie_bench.XXXXXX")
chmod 777 "$OUTDIR"
cleanup_out() { rm -rf "$OUTDIR"; }
trap 'cleanup_out; declare -F cluster_stop >/dev/null && cluster_stop; true' EXIT

"${PSQL[@]}" -c 'CREATE EXTENSION IF NOT EXISTS iceberg_export' >/dev/null

have=-1
if [ "$("${PSQL[@]}" -c "SELECT to_regclass('bench_subscriptions') IS NOT NULL")" = t ]; then
  have=$("${PSQL[@]}" -c "SELECT count(*) FROM bench_subscriptions")
fi
if [ "$have" != "$N" ]; then
  echo "generating $N rows ..." >&2
  "${PSQL[@]}" -v rows="$N" -f bench/gen_subscriptions.sql >/dev/null
fi
"${PSQL[@]}" -c 'VACUUM ANALYZE bench_subscriptions' >/dev/null
# Warm the buffer cache so that the first timed run does not pay for reads.
"${PSQL[@]}" -c 'SELECT count(*) FROM bench_subscriptions' >/dev/null
table_bytes=$("${PSQL[@]}" -c "SELECT pg_table_size('bench_subscriptions')")
spec=$("${PSQL[@]}" -c "SELECT json_agg(json_build_array(attname, format_type(atttypid, atttypmod)) ORDER BY attnum)
                          FROM pg_attribute WHERE attrelid = 'bench_subscriptions'::regclass AND attnum > 0 AND NOT attisdropped")

# in_backend runs one statement in a fresh session and prints
# "seconds|VmHWM kB" measured in that backend.
in_backend() {
  "${PSQL[@]}" <<EOF
SELECT clock_timestamp() AS t0 \gset
$1 \g /dev/null
SELECT extract(epoch FROM clock_timestamp() - :'t0') || '|' ||
       coalesce(substring(pg_read_file('/proc/' || pg_backend_pid() || '/status') FROM 'VmHWM:\s*(\d+) kB'), '?');
EOF
}

now() { date +%s.%N; }

best_a= best_b= best_c= hwm_a= hwm_b=
for run in $(seq 1 "$RUNS"); do
  rm -f "$OUTDIR/a.parquet" "$OUTDIR/c.parquet"
  r=$(in_backend "SELECT * FROM iceberg_export.write_parquet('SELECT * FROM bench_subscriptions', '$OUTDIR/a.parquet')")
  t=${r%%|*}; h=${r##*|}
  if [ -z "$best_a" ] || awk "BEGIN{exit !($t < $best_a)}"; then best_a=$t; fi
  if [ -z "$hwm_a" ] || [ "$h" -gt "$hwm_a" ]; then hwm_a=$h; fi

  r=$(in_backend "COPY (SELECT * FROM bench_subscriptions) TO '/dev/null'")
  t=${r%%|*}; h=${r##*|}
  if [ -z "$best_b" ] || awk "BEGIN{exit !($t < $best_b)}"; then best_b=$t; fi
  if [ -z "$hwm_b" ] || [ "$h" -gt "$hwm_b" ]; then hwm_b=$h; fi

  t0=$(now)
  "${PSQL[@]}" -c "COPY (SELECT * FROM bench_subscriptions) TO STDOUT (FORMAT csv)" \
    | node bench/csv_to_parquet.mjs "$OUTDIR/c.parquet" "$spec" >/dev/null
  t=$(awk "BEGIN{print $(now) - $t0}")
  if [ -z "$best_c" ] || awk "BEGIN{exit !($t < $best_c)}"; then best_c=$t; fi
  echo "run $run: a ${best_a}s b ${best_b}s c ${best_c}s (best so far)" >&2
done

size_a=$(stat -c %s "$OUTDIR/a.parquet")
size_c=$(stat -c %s "$OUTDIR/c.parquet")

awk -v n="$N" -v a="$best_a" -v b="$best_b" -v c="$best_c" -v sa="$size_a" -v sc="$size_c" \
    -v tb="$table_bytes" -v ha="$hwm_a" -v hb="$hwm_b" -v runs="$RUNS" 'BEGIN {
  printf "bench_write_parquet: %d rows of bench_subscriptions (heap %.1f MB), best of %d runs\n", n, tb / 1048576, runs
  printf "  %-52s %9s %12s %10s\n", "", "seconds", "rows/s", "output MB"
  printf "  %-52s %9.3f %12.0f %10.2f\n", "(a) iceberg_export.write_parquet (zstd)", a, n / a, sa / 1048576
  printf "  %-52s %9.3f %12.0f %10s\n", "(b) COPY TO /dev/null", b, n / b, "-"
  printf "  %-52s %9.3f %12.0f %10.2f\n", "(c) COPY csv | DuckDB parquet zstd, 1 thread", c, n / c, sc / 1048576
  printf "  time ratio a/b = %.2f   a/c = %.2f   size ratio a/c = %.2f\n", a / b, a / c, sa / sc
  printf "  backend peak RSS (VmHWM): after (a) %.1f MB, after (b) %.1f MB\n", ha / 1024, hb / 1024
}'
