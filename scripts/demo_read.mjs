// demo_read.mjs DIR: reads the demo's Parquet files with DuckDB and prints
// a summary of each, so the export is checked by a reader we did not write.
import { createRequire } from 'node:module';
const require = createRequire(new URL('../test/interop/package.json', import.meta.url));
const { DuckDBInstance } = require('@duckdb/node-api');

const dir = process.argv[2];
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const show = async (title, sql) => {
  const reader = await con.runAndReadAll(sql);
  console.log(`\n${title}`);
  console.table(reader.getRowObjectsJson());
};
await show('customers by currency',
  `SELECT billing_currency, count(*) AS customers, count(deleted_at) AS deleted
     FROM '${dir}/customers.parquet' GROUP BY ALL ORDER BY 1`);
await show('subscriptions by plan',
  `SELECT plan, status, count(*) AS subscriptions, sum(price) AS mrr
     FROM '${dir}/subscriptions.parquet' GROUP BY ALL ORDER BY 1, 2`);
await show('schema of subscriptions.parquet (field ids, logical types)',
  `SELECT name, type, logical_type, field_id
     FROM parquet_schema('${dir}/subscriptions.parquet')`);
