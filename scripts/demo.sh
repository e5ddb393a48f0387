#!/usr/bin/env bash
# demo.sh: installs, builds and runs iceberg_export on a throwaway cluster
# with the embedded default: loads the billing sample, syncs it into a local
# warehouse (catalog kept in Postgres), prints the sync history, and reads
# every table back with icebird, an Iceberg reader this project did not write.
#
#   bash scripts/demo.sh                     the cluster is removed at the end
#   DEMO_CUSTOMERS=10000 bash scripts/demo.sh
#   IE_KEEP_CLUSTER=1 bash scripts/demo.sh   leave it running to explore with psql
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
echo "demo: building"
make -j2 -s
make -s install

# shellcheck source=scripts/cluster.sh
source scripts/cluster.sh
cluster_start

warehouse="$IE_SCRATCH/warehouse"
mkdir -p "$warehouse"
chmod 777 "$warehouse"

psql -X -v ON_ERROR_STOP=1 -q -c 'CREATE EXTENSION iceberg_export'
psql -X -v ON_ERROR_STOP=1 -q -f sample/billing_schema.sql >/dev/null
psql -X -v ON_ERROR_STOP=1 -q -v customers="${DEMO_CUSTOMERS:-1000}" -f sample/generate.sql
psql -X -v ON_ERROR_STOP=1 -q -v warehouse="$warehouse" <<'SQL'
SELECT iceberg_export.create_destination('lake',
         options => jsonb_build_object('warehouse', :'warehouse'));
\echo
\echo Syncing with iceberg_export.iceberg_sync('lake'):
SELECT destination, status, tables, rows, data_files, bytes
FROM iceberg_export.iceberg_sync('lake');
\echo Sync history:
SELECT run_id, destination, trigger, status, rows, data_files, bytes, duration, error
FROM iceberg_export.sync_history ORDER BY started_at;
\echo Tables of the run:
SELECT target_table, rows, data_files, bytes, snapshot_id
FROM iceberg_export.sync_run_tables ORDER BY target_table;
\echo The local catalog (Iceberg JDBC catalog layout):
SELECT table_namespace, table_name, metadata_location
FROM iceberg_export.iceberg_tables ORDER BY table_name;
SQL

echo
echo "Reading the Iceberg tables back with icebird:"
psql -X -At -c "SELECT metadata_location FROM iceberg_export.iceberg_tables
                WHERE catalog_name = 'lake' ORDER BY table_name" > "$IE_SCRATCH/tables.txt"
node scripts/demo_read.mjs "$IE_SCRATCH/tables.txt"
echo "demo: ok"
