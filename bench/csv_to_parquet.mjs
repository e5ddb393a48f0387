// csv_to_parquet.mjs: the benchmark's baseline writer.  Reads PostgreSQL
// COPY ... (FORMAT csv) output on stdin and writes it as Parquet (zstd)
// with DuckDB on one thread.
//
//   psql -c "COPY (SELECT ...) TO STDOUT (FORMAT csv)" |
//     node bench/csv_to_parquet.mjs OUT.parquet '[["id","uuid"],["amount","numeric(12,2)"],...]'
//
// The second argument lists the columns as [name, format_type()] pairs; they
// become explicit DuckDB column types, so nothing is sniffed.  Prints the
// number of rows written.

import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// @duckdb/node-api lives in test/interop/node_modules.
const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', 'test', 'interop', 'package.json'));
const { DuckDBInstance } = await import(require.resolve('@duckdb/node-api'));

const [out, spec] = process.argv.slice(2);
if (!out || !spec) {
  console.error('usage: csv_to_parquet.mjs OUT.parquet COLUMNS_JSON');
  process.exit(2);
}

function duckType(pg) {
  const m = /^numeric\((\d+),(\d+)\)$/.exec(pg);
  if (m) return `DECIMAL(${m[1]},${m[2]})`;
  const map = {
    uuid: 'UUID', text: 'VARCHAR', 'character varying': 'VARCHAR', jsonb: 'VARCHAR', json: 'VARCHAR',
    'timestamp with time zone': 'TIMESTAMPTZ', 'timestamp without time zone': 'TIMESTAMP', date: 'DATE',
    boolean: 'BOOLEAN', bigint: 'BIGINT', integer: 'INTEGER', smallint: 'SMALLINT',
    'double precision': 'DOUBLE', real: 'FLOAT', numeric: 'DECIMAL(38,9)',
  };
  if (!map[pg]) throw new Error(`no DuckDB type for ${pg}`);
  return map[pg];
}

const q = (s) => `'${s.replace(/'/g, "''")}'`;
const columns = JSON.parse(spec).map(([name, pg]) => `${q(name)}: ${q(duckType(pg))}`).join(', ');

const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
const conn = await instance.connect();
await conn.run("SET TimeZone = 'UTC'");
const reader = await conn.runAndReadAll(`
  COPY (SELECT * FROM read_csv('/dev/stdin', header = false, delim = ',', quote = '"', escape = '"',
                               nullstr = '', allow_quoted_nulls = false, auto_detect = false,
                               columns = {${columns}}))
    TO ${q(out)} (FORMAT parquet, COMPRESSION zstd)`);
console.log(String(reader.getRows()[0]?.[0] ?? ''));
