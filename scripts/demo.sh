#!/usr/bin/env bash
# demo.sh: installs, builds and runs iceberg_export on a throwaway cluster:
# loads a small billing-platform sample, exports it, and reads the files back
# with DuckDB, a reader this project did not write.
#
#   bash scripts/demo.sh                     the cluster is removed at the end
#   IE_KEEP_CLUSTER=1 bash scripts/demo.sh   leave it running to explore with psql
#
# Until the Iceberg sync lands, the export is iceberg_export.write_parquet(),
# one Parquet file per table.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
echo "demo: building"
make -j2 -s
make -s install

# shellcheck source=scripts/cluster.sh
source scripts/cluster.sh
cluster_start

out="$IE_SCRATCH/demo"
mkdir -p "$out"
chmod 777 "$out"

psql -X -v ON_ERROR_STOP=1 -q -v out="$out" <<'SQL'
CREATE EXTENSION iceberg_export;
CREATE TABLE customers (
  id uuid PRIMARY KEY, email text NOT NULL, name text, billing_currency text,
  has_active_subscription boolean, additional_meta_data jsonb,
  created_at timestamptz NOT NULL, deleted_at timestamptz);
CREATE TABLE subscriptions (
  id uuid PRIMARY KEY, customer_id uuid REFERENCES customers, plan text,
  status text, price numeric(12,2), start_date date, tags text[]);
INSERT INTO customers
SELECT md5('c' || i)::uuid, 'user' || i || '@example.com', 'Customer ' || i,
       (ARRAY['USD', 'EUR', 'GBP'])[1 + i % 3], i % 4 <> 0,
       jsonb_build_object('segment', (ARRAY['smb', 'mid', 'ent'])[1 + i % 3]),
       timestamptz '2024-01-01' + i * interval '1 hour',
       CASE WHEN i % 50 = 0 THEN timestamptz '2025-06-01' END
FROM generate_series(1, 1000) i;
INSERT INTO subscriptions
SELECT md5('s' || i)::uuid, md5('c' || (1 + i % 1000))::uuid,
       (ARRAY['starter', 'growth', 'enterprise'])[1 + i % 3],
       (ARRAY['active', 'trialing', 'canceled'])[1 + i % 3],
       (ARRAY[9.99, 49.00, 499.00])[1 + i % 3],
       date '2024-01-01' + i, ARRAY['demo', 'tier-' || (i % 3)]
FROM generate_series(1, 3000) i;
\echo
\echo Exporting with iceberg_export.write_parquet():
SELECT 'customers' AS "table", * FROM iceberg_export.write_parquet(
         'SELECT * FROM customers ORDER BY id', :'out' || '/customers.parquet')
UNION ALL
SELECT 'subscriptions', * FROM iceberg_export.write_parquet(
         'SELECT * FROM subscriptions ORDER BY id', :'out' || '/subscriptions.parquet',
         compression => 'snappy');
SQL

echo
echo "Reading the files back with DuckDB:"
node scripts/demo_read.mjs "$out"
echo "demo: ok"
