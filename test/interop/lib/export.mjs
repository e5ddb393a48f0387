// export.mjs: calls iceberg_export.write_parquet and checks files round-trip.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { canonRowsFromPg } from './canon.mjs';
import { assertRowsEqual } from './compare.mjs';
import { readCanonicalDuck } from './duckdb.mjs';
import { readCanonicalHyp } from './hyparquet.mjs';
import { describeQuery, fetchCanonicalRows, lit, psql } from './pg.mjs';

let runDir = null;

/**
 * scratchDir is a directory for this test process under IE_SCRATCH (or
 * /tmp), world-writable so that the server (OS user postgres) can write.
 */
export function scratchDir() {
  if (!runDir) {
    const base = process.env.IE_SCRATCH || '/tmp';
    runDir = fs.mkdtempSync(path.join(base, 'ie_interop_'));
    fs.chmodSync(runDir, 0o777);
  }
  return runDir;
}

/** freshDir makes an empty world-writable directory under scratchDir(). */
export function freshDir(name) {
  const d = path.join(scratchDir(), name);
  fs.rmSync(d, { recursive: true, force: true });
  fs.mkdirSync(d, { mode: 0o777 });
  fs.chmodSync(d, 0o777);
  return d;
}

/** removeScratch deletes this process's scratch directory. */
export function removeScratch() {
  if (runDir && !process.env.IE_KEEP_SCRATCH) fs.rmSync(runDir, { recursive: true, force: true });
  runDir = null;
}

/** ensureExtension creates the extension when it is not there yet. */
export function ensureExtension() {
  psql('CREATE EXTENSION IF NOT EXISTS iceberg_export');
}

/** writeParquetSql is the SQL of one write_parquet call. */
export function writeParquetSql(query, target, { compression, rowGroupBytes } = {}) {
  const args = [lit(query), lit(target)];
  if (compression !== undefined || rowGroupBytes !== undefined) args.push(compression === undefined ? "'zstd'" : lit(compression));
  if (rowGroupBytes !== undefined) args.push(String(rowGroupBytes));
  return `SELECT rows, bytes FROM iceberg_export.write_parquet(${args.join(', ')})`;
}

/** writeParquet runs write_parquet and returns {rows, bytes} as numbers. */
export function writeParquet(query, target, options = {}) {
  const out = psql(writeParquetSql(query, target, options));
  const [rows, bytes] = out.split('|').map(Number);
  return { rows, bytes };
}

/**
 * roundTrip writes query to a file in the scratch directory and compares
 * what DuckDB and hyparquet read back with the query's rows, value by value.
 * Returns {file, columns, expected, result} for further checks.
 */
export async function roundTrip(name, query, options = {}) {
  const file = path.join(scratchDir(), `${name}.parquet`);
  const columns = describeQuery(query);
  const { rows: pgRows } = fetchCanonicalRows(query, columns);
  const expected = canonRowsFromPg(pgRows, columns);
  const result = writeParquet(query, file, options);

  assert.equal(result.rows, expected.length, `write_parquet reported ${result.rows} rows, the query has ${expected.length}`);
  const size = fs.statSync(file).size;
  assert.equal(result.bytes, size, `write_parquet reported ${result.bytes} bytes, the file has ${size}`);

  const names = columns.map((c) => c.name);
  const d = await readCanonicalDuck(file, columns);
  assert.equal(d.error, undefined, d.error);
  assert.deepEqual(d.names, names, 'DuckDB column names');
  assertRowsEqual(d.rows, expected, { columns, reader: 'DuckDB', label: name });

  const h = await readCanonicalHyp(file, columns);
  assert.equal(h.error, undefined, h.error);
  assert.deepEqual(h.names, names, 'hyparquet column names');
  assertRowsEqual(h.rows, expected, { columns, reader: 'hyparquet', label: name });

  return { file, columns, expected, result, duckTypes: d.types, hypMetadata: h.metadata };
}
