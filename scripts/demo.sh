#!/usr/bin/env bash
# demo.sh: installs, builds and shows iceberg_export on a throwaway cluster.
# (Placeholder: it creates the extension and prints its version.)
#
#   bash scripts/demo.sh                  the cluster is removed at the end
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

psql -X -v ON_ERROR_STOP=1 -q <<'SQL'
CREATE EXTENSION iceberg_export;
\echo
\echo iceberg_export is installed; its version:
SELECT iceberg_export.version();
SQL
echo "demo: ok"
