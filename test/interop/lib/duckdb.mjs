// duckdb.mjs: reads Parquet files with DuckDB (@duckdb/node-api).
//
// DuckDB's values keep full precision when taken as DuckDBValue objects
// (getRows): BIGINT is a bigint, DECIMAL a DuckDBDecimalValue {width, scale,
// value: bigint unscaled}, DATE a DuckDBDateValue {days}, TIME a
// DuckDBTimeValue {micros}, TIMESTAMP / TIMESTAMP WITH TIME ZONE a
// DuckDBTimestampValue / DuckDBTimestampTZValue {micros} (±infinity is
// ±INT64_MAX micros), UUID a DuckDBUUIDValue (toString() gives the text),
// BLOB a DuckDBBlobValue {bytes}, lists a DuckDBListValue {items}, structs a
// DuckDBStructValue {entries}.  getRowObjectsJS would turn decimals into
// lossy numbers, so it is not used for values.

import {
  DuckDBInstance, DuckDBBlobValue, DuckDBDateValue, DuckDBDecimalValue, DuckDBListValue,
  DuckDBStructValue, DuckDBTimeValue, DuckDBTimestampTZValue, DuckDBTimestampValue, DuckDBUUIDValue,
} from '@duckdb/node-api';
import { canonDecimal, canonFloat, hex, unexpected } from './canon.mjs';

let connectionPromise = null;

/** duck returns a shared DuckDB connection (in-memory, one thread). */
export function duck() {
  connectionPromise ??= (async () => {
    const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
    const conn = await instance.connect();
    await conn.run("SET TimeZone = 'UTC'");
    return conn;
  })();
  return connectionPromise;
}

/** duckRows runs sql and returns rows as arrays of DuckDBValue. */
export async function duckRows(sql) {
  const conn = await duck();
  const reader = await conn.runAndReadAll(sql);
  return { names: reader.columnNames(), rows: reader.getRows() };
}

/** duckObjects runs sql and returns rows as objects of JSON-friendly values (bigints as strings). */
export async function duckObjects(sql) {
  const conn = await duck();
  const reader = await conn.runAndReadAll(sql);
  return reader.getRowObjectsJson();
}

/** sqlString quotes a string for DuckDB SQL. */
export function duckLit(s) {
  return `'${String(s).replace(/'/g, "''")}'`;
}

/** readParquetDuck returns {names, types, rows} of a file in file order; rows hold DuckDBValues. */
export async function readParquetDuck(path) {
  const conn = await duck();
  const reader = await conn.runAndReadAll(
    `SELECT * FROM read_parquet(${duckLit(path)}, file_row_number = true) ORDER BY file_row_number`);
  const names = reader.columnNames();
  const types = reader.columnTypes().map(String);
  const keep = names.length - 1; // drop file_row_number
  return {
    names: names.slice(0, keep),
    types: types.slice(0, keep),
    rows: reader.getRows().map((r) => r.slice(0, keep)),
  };
}

/** canonFromDuck turns a DuckDBValue into the canonical form for type t. */
export function canonFromDuck(v, t) {
  if (v === null || v === undefined) return v ?? null;
  const bad = () => unexpected('duckdb', t, v);
  switch (t.kind) {
    case 'int2':
    case 'int4':
      return typeof v === 'number' && Number.isInteger(v) ? String(v) : bad();
    case 'int8':
      return typeof v === 'bigint' ? String(v) : bad();
    case 'float4':
    case 'float8':
      return typeof v === 'number' ? canonFloat(v) : bad();
    case 'numeric':
      return v instanceof DuckDBDecimalValue ? canonDecimal(v.value, v.scale) : bad();
    case 'bool':
      return typeof v === 'boolean' ? String(v) : bad();
    case 'date':
      return v instanceof DuckDBDateValue ? String(v.days) : bad();
    case 'time':
      return v instanceof DuckDBTimeValue ? String(v.micros) : bad();
    case 'timestamp':
      return v instanceof DuckDBTimestampValue ? String(v.micros) : bad();
    case 'timestamptz':
      return v instanceof DuckDBTimestampTZValue ? String(v.micros) : bad();
    case 'uuid':
      return v instanceof DuckDBUUIDValue ? v.toString() : bad();
    case 'bytea':
      return v instanceof DuckDBBlobValue ? hex(v.bytes) : bad();
    case 'array':
      return v instanceof DuckDBListValue ? v.items.map((e) => canonFromDuck(e, t.element)) : bad();
    case 'composite': {
      if (!(v instanceof DuckDBStructValue)) return bad();
      const names = Object.keys(v.entries);
      const want = t.fields.map((f) => f.name);
      if (names.join('\u0000') !== want.join('\u0000')) {
        return `<<duckdb: struct fields ${JSON.stringify(names)}, expected ${JSON.stringify(want)}>>`;
      }
      const o = {};
      for (const f of t.fields) o[f.name] = canonFromDuck(v.entries[f.name], f.type);
      return o;
    }
    default: // string, json, jsonb, other
      return typeof v === 'string' ? v : bad();
  }
}

/** readCanonicalDuck reads a file with DuckDB and returns {names, types, rows} in canonical form. */
export async function readCanonicalDuck(path, columns) {
  const { names, types, rows } = await readParquetDuck(path);
  if (names.length !== columns.length) {
    return { names, types, rows, error: `DuckDB sees ${names.length} columns ${JSON.stringify(names)}, expected ${columns.length}` };
  }
  return { names, types, rows: rows.map((r) => r.map((v, i) => canonFromDuck(v, columns[i].type))) };
}

/** parquetSchemaDuck returns DuckDB's parquet_schema() rows (JSON values). */
export function parquetSchemaDuck(path) {
  return duckObjects(`SELECT * FROM parquet_schema(${duckLit(path)})`);
}

/** parquetMetadataDuck returns DuckDB's parquet_metadata() rows (JSON values). */
export function parquetMetadataDuck(path) {
  return duckObjects(`SELECT * FROM parquet_metadata(${duckLit(path)}) ORDER BY row_group_id, column_id`);
}

/** parquetFileMetadataDuck returns DuckDB's parquet_file_metadata() row. */
export async function parquetFileMetadataDuck(path) {
  return (await duckObjects(`SELECT * FROM parquet_file_metadata(${duckLit(path)})`))[0];
}
