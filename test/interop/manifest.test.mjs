// manifest.test.mjs: Iceberg v2 manifests and manifest lists written by
// src/iceberg/manifest.c and manifest_metrics.c, read back with avsc and
// icebird's Avro reader (and DuckDB's read_avro when its extension loads),
// checked against the Iceberg spec's schemas and against the source rows'
// min/max computed in Postgres.
//
// Uses the test-only function iceberg_export._debug_export_manifest, which
// test/interop/sql/debug_functions.sql declares.  Needs a server with the
// extension installed (PGHOST, PGPORT, PGUSER) and IE_SCRATCH.

import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import avro from 'avsc';
import { avroMetadata, avroRead } from 'icebird';

import { bigEndianSigned, hex } from './lib/canon.mjs';
import { duck, duckLit, duckObjects, parquetMetadataDuck, parquetSchemaDuck } from './lib/duckdb.mjs';
import { ensureExtension, freshDir, removeScratch } from './lib/export.mjs';
import { lit, psql, psqlJson } from './lib/pg.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const S = 'ie_manifest';

const SETUP = `
DROP SCHEMA IF EXISTS ${S} CASCADE;
CREATE SCHEMA ${S};
CREATE TYPE ${S}.pair AS (a integer, b text);
CREATE TABLE ${S}.t (
  id integer, c_long bigint, c_text text, c_text_top text, c_text_surr text,
  c_dec numeric(10,2), c_dec5 numeric(5,2), c_dec38 numeric(38,6),
  c_date date, c_ts timestamp, c_tstz timestamptz, c_time time, c_uuid uuid,
  c_real real, c_double double precision, c_nan double precision, c_bool boolean,
  c_bytea bytea, c_list integer[], c_null text, c_pair ${S}.pair);
INSERT INTO ${S}.t VALUES
 (1, -9223372036854775808, 'short', 'a', 'a', -12345678.99, -999.99,
  -99999999999999999999999999999999.999999, '1969-12-31', '1900-01-01 00:00:00',
  '1969-12-31 23:59:59.999999+00', '00:00:00', '00000000-0000-0000-0000-000000000001',
  '-0', 'NaN', 'NaN', false, '\\x00ff', '{1,NULL}', NULL, ROW(5, 'x')),
 (2, 9223372036854775807, 'é☃😀中文字符 is longer than sixteen', repeat(chr(1114111), 17),
  repeat('a', 15) || chr(55295) || 'zz', 14.20, 0.01, 12345.678901, '2262-04-11',
  '2024-02-29 12:34:56.789', '2024-06-01 12:00:00+05:30', '23:59:59.999999',
  'ffffffff-ffff-ffff-ffff-ffffffffffff', '0', -1.5, NULL, true,
  '\\x010101010101010101010101010101ffff', '{}', NULL, ROW(NULL, 'zzz')),
 (3, 0, 'a long string that starts with a and goes on', NULL, NULL, 0, NULL, 0, NULL, NULL,
  NULL, NULL, NULL, 3.5, 1e300, 'NaN', NULL, '\\x000102030405060708090a0b0c0d0e0f1011', NULL, NULL, NULL),
 (4, NULL, 'zz', 'b', 'a', 0.05, 1.5, -0.000001, '2000-02-29', '2000-02-29 00:00:00',
  '2000-02-29 00:00:00+00', '12:00:00', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
  NULL, 'NaN', NULL, NULL, NULL, '{3,4,5}', NULL, ROW(-7, NULL));
`;

const QUERY = `SELECT * FROM ${S}.t ORDER BY id`;

/*
 * The top-level and struct leaves whose metrics are checked: name (a path
 * into the schema), kind, and the SQL expression of the value.
 */
const LEAVES = [
  ['id', 'int', 'id'], ['c_long', 'long', 'c_long'], ['c_text', 'string', 'c_text'],
  ['c_text_top', 'string', 'c_text_top'], ['c_text_surr', 'string', 'c_text_surr'],
  ['c_dec', 'decimal', 'c_dec', 2], ['c_dec5', 'decimal', 'c_dec5', 2], ['c_dec38', 'decimal', 'c_dec38', 6],
  ['c_date', 'date', 'c_date'], ['c_ts', 'timestamp', 'c_ts'], ['c_tstz', 'timestamp', 'c_tstz'],
  ['c_time', 'time', 'c_time'], ['c_uuid', 'uuid', 'c_uuid'], ['c_real', 'float', 'c_real'],
  ['c_double', 'double', 'c_double'], ['c_nan', 'double', 'c_nan'], ['c_bool', 'boolean', 'c_bool'],
  ['c_bytea', 'binary', 'c_bytea'], ['c_null', 'string', 'c_null'],
  ['c_pair.a', 'int', '(c_pair).a'], ['c_pair.b', 'string', '(c_pair).b'],
].map(([name, kind, expr, scale]) => ({ name, kind, expr, scale }));

/* The Iceberg type each column gets (DESIGN.md §5). */
const TYPES = {
  id: 'int', c_long: 'long', c_text: 'string', c_text_top: 'string', c_text_surr: 'string',
  c_dec: 'decimal(10,2)', c_dec5: 'decimal(5,2)', c_dec38: 'decimal(38,6)', c_date: 'date',
  c_ts: 'timestamp', c_tstz: 'timestamptz', c_time: 'time', c_uuid: 'uuid', c_real: 'float',
  c_double: 'double', c_nan: 'double', c_bool: 'boolean', c_bytea: 'binary', c_null: 'string',
};

/* Field ids of the manifest_entry schema, Iceberg spec / Java V2Metadata. */
const ENTRY_IDS = {
  status: 0, snapshot_id: 1, sequence_number: 3, file_sequence_number: 4, data_file: 2,
  'data_file.content': 134, 'data_file.file_path': 100, 'data_file.file_format': 101,
  'data_file.partition': 102, 'data_file.record_count': 103, 'data_file.file_size_in_bytes': 104,
  'data_file.column_sizes': 108, 'data_file.column_sizes.key': 117, 'data_file.column_sizes.value': 118,
  'data_file.value_counts': 109, 'data_file.value_counts.key': 119, 'data_file.value_counts.value': 120,
  'data_file.null_value_counts': 110, 'data_file.null_value_counts.key': 121,
  'data_file.null_value_counts.value': 122, 'data_file.nan_value_counts': 137,
  'data_file.nan_value_counts.key': 138, 'data_file.nan_value_counts.value': 139,
  'data_file.lower_bounds': 125, 'data_file.lower_bounds.key': 126, 'data_file.lower_bounds.value': 127,
  'data_file.upper_bounds': 128, 'data_file.upper_bounds.key': 129, 'data_file.upper_bounds.value': 130,
  'data_file.key_metadata': 131, 'data_file.split_offsets': 132, 'data_file.split_offsets[]': 133,
  'data_file.equality_ids': 135, 'data_file.equality_ids[]': 136, 'data_file.sort_order_id': 140,
  'data_file.referenced_data_file': 143,
};

const LIST_IDS = {
  manifest_path: 500, manifest_length: 501, partition_spec_id: 502, content: 517, sequence_number: 515,
  min_sequence_number: 516, added_snapshot_id: 503, added_files_count: 504, existing_files_count: 505,
  deleted_files_count: 506, added_rows_count: 512, existing_rows_count: 513, deleted_rows_count: 514,
  partitions: 507, 'partitions[]': 508, 'partitions[].contains_null': 509, 'partitions[].contains_nan': 518,
  'partitions[].lower_bound': 510, 'partitions[].upper_bound': 511, key_metadata: 519,
};

before(() => {
  ensureExtension();
  psql(fs.readFileSync(path.join(HERE, 'sql', 'debug_functions.sql'), 'utf8'));
  psql(SETUP);
});

after(() => {
  psql(`DROP SCHEMA IF EXISTS ${S} CASCADE`);
  psql('DROP FUNCTION IF EXISTS iceberg_export._debug_export_manifest');
  removeScratch();
});

/** exportManifest writes data, manifest and list for query into a fresh dir. */
function exportManifest(name, query, { snapshotId = 1, seq = 1, parent = null, status = 1 } = {}) {
  const dir = freshDir(name);
  return psqlJson(`SELECT row_to_json(r) FROM iceberg_export._debug_export_manifest(
      ${lit(query)}, ${lit(dir)}, ${snapshotId}, ${seq}, ${parent === null ? 'NULL' : parent}, ${status}) r`);
}

/** readAvsc reads an Avro file with avsc: {header (strings), codec, schema (JSON), records}. */
function readAvsc(file) {
  return new Promise((resolve, reject) => {
    const records = [];
    let header = null;
    let codec = null;
    const d = avro.createFileDecoder(file);
    d.on('metadata', (type, c, h) => {
      codec = c;
      header = Object.fromEntries(Object.entries(h.meta).map(([k, v]) => [k, v.toString('utf8')]));
    });
    d.on('data', (r) => records.push(r));
    d.on('error', reject);
    d.on('end', () => resolve({ header, codec, schema: JSON.parse(header['avro.schema']), records }));
  });
}

/** readIcebird reads an Avro file with icebird's reader: {header, records}. */
function readIcebird(file) {
  const b = fs.readFileSync(file);
  const reader = { view: new DataView(b.buffer, b.byteOffset, b.byteLength), offset: 0 };
  const { metadata, syncMarker } = avroMetadata(reader);
  return { header: metadata, records: avroRead({ reader, metadata, syncMarker }) };
}

/*
 * avroIds lists [path, id] for every field-id / element-id in an Avro
 * schema, and the problems: fields without field-id, arrays without
 * element-id (other than map arrays, whose key/value fields carry the ids).
 */
function avroIds(schema) {
  const ids = {};
  const problems = [];
  const walk = (t, p) => {
    if (Array.isArray(t)) {
      t.forEach((b) => walk(b, p));
      return;
    }
    if (typeof t !== 'object' || t === null) return;
    if (t.type === 'record') {
      for (const f of t.fields) {
        const fp = p ? `${p}.${f.name}` : f.name;
        if (!Number.isInteger(f['field-id'])) problems.push(`${fp}: no field-id`);
        else ids[fp] = f['field-id'];
        walk(f.type, fp);
      }
    } else if (t.type === 'array') {
      if (t.logicalType === 'map') {
        if (t.items.type !== 'record' || t.items.fields.map((f) => f.name).join() !== 'key,value') {
          problems.push(`${p}: map array items are not a key/value record`);
        }
        if (t.items.name !== `k${t.items.fields[0]['field-id']}_v${t.items.fields[1]['field-id']}`) {
          problems.push(`${p}: map record named ${t.items.name}`);
        }
        walk(t.items, p);
      } else {
        if (!Number.isInteger(t['element-id'])) problems.push(`${p}: array without element-id`);
        else ids[`${p}[]`] = t['element-id'];
        walk(t.items, `${p}[]`);
      }
    }
  };
  walk(schema, '');
  return { ids, problems };
}

/** mapOf turns an Avro array of {key, value} records (or null) into a Map. */
function mapOf(arr) {
  if (arr === null || arr === undefined) return new Map();
  const m = new Map();
  for (const { key, value } of arr) {
    assert.ok(!m.has(key), `duplicate map key ${key}`);
    m.set(key, value);
  }
  return m;
}

/** schemaIds maps column paths ("c_pair.a", "c_list[]") of an Iceberg schema JSON to ids. */
function schemaIds(schema) {
  const ids = {};
  const walk = (t, p) => {
    if (typeof t !== 'object') return;
    if (t.type === 'struct') {
      for (const f of t.fields) {
        const fp = p ? `${p}.${f.name}` : f.name;
        ids[fp] = f.id;
        walk(f.type, fp);
      }
    } else if (t.type === 'list') {
      ids[`${p}[]`] = t['element-id'];
      walk(t.element, `${p}[]`);
    }
  };
  walk(schema, '');
  return ids;
}

// Expected bounds, decoded from the single-value serialization. ----------

/** truncMin is Iceberg's truncate(16) lower bound of a string. */
function truncMin(s) {
  const cps = [...s];
  return cps.length <= 16 ? s : cps.slice(0, 16).join('');
}

/** truncMax is Iceberg's truncate(16) upper bound of a string, or null. */
function truncMax(s) {
  const cps = [...s].map((c) => c.codePointAt(0));
  if (cps.length <= 16) return s;
  for (let i = 15; i >= 0; i--) {
    let next = cps[i] + 1;
    if (next >= 0xd800 && next <= 0xdfff) next = 0xe000;
    if (next <= 0x10ffff) return String.fromCodePoint(...cps.slice(0, i), next);
  }
  return null;
}

/** truncBinaryMax is truncate(16) of binary for an upper bound (hex), or null. */
function truncBinaryMax(h) {
  const b = Buffer.from(h, 'hex');
  if (b.length <= 16) return h;
  for (let i = 15; i >= 0; i--) {
    if (b[i] !== 0xff) {
      const r = Buffer.from(b.subarray(0, i + 1));
      r[i] += 1;
      return r.toString('hex');
    }
  }
  return null;
}

/** decodeBound turns a bound's bytes into the canonical text computed in SQL. */
function decodeBound(kind, bytes) {
  const b = Buffer.from(bytes);
  switch (kind) {
    case 'int': case 'date':
      assert.equal(b.length, 4, `${kind} bound is 4 bytes`);
      return String(b.readInt32LE(0));
    case 'long': case 'timestamp': case 'time':
      assert.equal(b.length, 8, `${kind} bound is 8 bytes`);
      return String(b.readBigInt64LE(0));
    case 'float':
      assert.equal(b.length, 4);
      return b.readFloatLE(0);
    case 'double':
      assert.equal(b.length, 8);
      return b.readDoubleLE(0);
    case 'boolean':
      assert.equal(b.length, 1);
      return b[0] ? 'true' : 'false';
    case 'decimal': {
      // minimal two's complement: no redundant leading sign byte
      if (b.length > 1) {
        assert.ok(!((b[0] === 0x00 && !(b[1] & 0x80)) || (b[0] === 0xff && (b[1] & 0x80))),
          `decimal bound ${hex(b)} is not minimal`);
      }
      return String(bigEndianSigned(b));
    }
    case 'uuid':
      assert.equal(b.length, 16);
      return hex(b);
    case 'binary':
      return hex(b);
    default:
      return b.toString('utf8');
  }
}

/** sqlBound is the SQL of the canonical min or max of a leaf. */
function sqlBound(leaf, agg) {
  const e = leaf.expr;
  switch (leaf.kind) {
    case 'int': case 'long': return `${agg}(${e})::text`;
    case 'decimal': return `(${agg}(${e}) * 10::numeric ^ ${leaf.scale})::numeric(60,0)::text`;
    case 'date': return `(${agg}(${e}) - date '1970-01-01')::text`;
    case 'timestamp': case 'time': return `(extract(epoch FROM ${agg}(${e})) * 1000000)::numeric(30,0)::text`;
    case 'float': case 'double': return `(${agg}(${e}) FILTER (WHERE ${e} <> 'NaN'))::float8::text`;
    case 'boolean': return `(${agg}((${e})::int) = 1)::text`;
    case 'uuid': return `replace(${agg}((${e})::text), '-', '')`;
    case 'binary':
      return `encode((array_agg(${e} ORDER BY ${e} ${agg === 'min' ? 'ASC' : 'DESC'}) FILTER (WHERE ${e} IS NOT NULL))[1], 'hex')`;
    // as hex: psql drops noncharacters such as U+10FFFF from its output
    default: return `encode(convert_to(${agg}(${e} COLLATE "C"), 'UTF8'), 'hex')`;
  }
}

/** expectedMetrics computes per leaf {rows, nulls, nans, min, max} in Postgres. */
function expectedMetrics(table) {
  const parts = LEAVES.map((l) => `${lit(l.name)}, json_build_object(
      'nulls', count(*) - count(${l.expr}),
      'nans', ${l.kind === 'float' || l.kind === 'double' ? `count(*) FILTER (WHERE ${l.expr} = 'NaN')` : 'NULL'},
      'min', ${sqlBound(l, 'min')}, 'max', ${sqlBound(l, 'max')})`);
  return psqlJson(`SELECT json_build_object('rows', count(*), 'leaves', json_build_object(${parts.join(',')}))
                     FROM ${table}`);
}

// Tests -------------------------------------------------------------------

let main = null;

before(() => {
  main = exportManifest('main', QUERY, { snapshotId: 4242424242424242, seq: 7, parent: 17 });
});

test('the debug export reports the files it wrote', () => {
  for (const [p, bytes] of [[main.data_file, main.data_bytes], [main.manifest, main.manifest_bytes],
    [main.manifest_list, main.list_bytes]]) {
    assert.equal(fs.statSync(p).size, Number(bytes), `size of ${p}`);
  }
  assert.equal(main.record_count, 4);
});

test('manifest header: Iceberg keys, deflate, and the table schema', async () => {
  const { header, codec } = await readAvsc(main.manifest);
  assert.equal(codec, 'deflate');
  const { schema: _s, 'avro.schema': _a, ...keys } = header;
  assert.deepEqual(keys, {
    'avro.codec': 'deflate', 'schema-id': '0', 'partition-spec': '[]', 'partition-spec-id': '0',
    'format-version': '2', content: 'data',
  });
  const schema = JSON.parse(header.schema);
  assert.equal(schema.type, 'struct');
  assert.equal(schema['schema-id'], 0);
  const types = Object.fromEntries(schema.fields.filter((f) => typeof f.type === 'string').map((f) => [f.name, f.type]));
  assert.deepEqual(types, TYPES);
  const list = schema.fields.find((f) => f.name === 'c_list');
  assert.equal(list.type.type, 'list');
  assert.equal(list.type.element, 'int');
  const pair = schema.fields.find((f) => f.name === 'c_pair');
  assert.deepEqual(pair.type.fields.map((f) => [f.name, f.type]), [['a', 'int'], ['b', 'string']]);
  // the ids agree with the Parquet file's
  const ids = schemaIds(schema);
  const pq = await parquetSchemaDuck(main.data_file);
  for (const f of schema.fields) {
    const node = pq.find((n) => n.name === f.name);
    assert.equal(Number(node.field_id), f.id, `Parquet field id of ${f.name}`);
  }
  assert.ok(ids['c_list[]'] > 0 && ids['c_pair.a'] > 0);
});

test('manifest writer schema: field ids as in the spec on every field', async () => {
  const { schema } = await readAvsc(main.manifest);
  assert.equal(schema.name, 'manifest_entry');
  const { ids, problems } = avroIds(schema);
  assert.deepEqual(problems, []);
  assert.deepEqual(ids, ENTRY_IDS);
  const df = schema.fields.find((f) => f.name === 'data_file').type;
  assert.equal(df.name, 'r2');
  const part = df.fields.find((f) => f.name === 'partition').type;
  assert.deepEqual([part.type, part.name, part.fields], ['record', 'r102', []]);
  for (const f of df.fields.filter((x) => ['column_sizes', 'lower_bounds'].includes(x.name))) {
    assert.equal(f.type[1].logicalType, 'map', `${f.name} is a map array`);
  }
});

test('manifest list: header, field ids, and the manifest_file record', async () => {
  const { header, codec, schema, records } = await readAvsc(main.manifest_list);
  assert.equal(codec, 'deflate');
  const { 'avro.schema': _a, ...keys } = header;
  assert.deepEqual(keys, {
    'avro.codec': 'deflate', 'snapshot-id': '4242424242424242', 'parent-snapshot-id': '17',
    'sequence-number': '7', 'format-version': '2',
  });
  assert.equal(schema.name, 'manifest_file');
  const { ids, problems } = avroIds(schema);
  assert.deepEqual(problems, []);
  assert.deepEqual(ids, LIST_IDS);

  assert.equal(records.length, 1);
  assert.deepEqual({ ...records[0] }, {
    manifest_path: `file://${main.manifest}`, manifest_length: fs.statSync(main.manifest).size,
    partition_spec_id: 0, content: 0, sequence_number: 7, min_sequence_number: 7,
    added_snapshot_id: 4242424242424242, added_files_count: 1, existing_files_count: 0,
    deleted_files_count: 0, added_rows_count: 4, existing_rows_count: 0, deleted_rows_count: 0,
    partitions: [], key_metadata: null,
  });
});

test('manifest entry: status, inherited sequence numbers, data_file fields', async () => {
  const { records } = await readAvsc(main.manifest);
  assert.equal(records.length, 1);
  const e = records[0];
  assert.equal(e.status, 1);
  assert.equal(e.snapshot_id, 4242424242424242);
  assert.equal(e.sequence_number, null);
  assert.equal(e.file_sequence_number, null);
  const f = e.data_file;
  assert.equal(f.content, 0);
  assert.equal(f.file_path, `file://${main.data_file}`);
  assert.equal(f.file_format, 'PARQUET');
  assert.deepEqual({ ...f.partition }, {});
  assert.equal(f.record_count, 4);
  assert.equal(f.file_size_in_bytes, fs.statSync(main.data_file).size);
  assert.equal(f.key_metadata, null);
  assert.equal(f.split_offsets, null);
  assert.equal(f.equality_ids, null);
  assert.equal(f.sort_order_id, null);
  assert.equal(f.referenced_data_file, null);
});

test('column sizes are the Parquet chunks\' compressed sizes, for every leaf', async () => {
  const { header, records } = await readAvsc(main.manifest);
  const ids = schemaIds(JSON.parse(header.schema));
  const sizes = mapOf(records[0].data_file.column_sizes);
  const md = await parquetMetadataDuck(main.data_file);
  const want = new Map();
  for (const c of md) {
    const p = c.path_in_schema.split(', ').join('.').replace(/\.list\.element$/, '[]');
    assert.ok(ids[p], `leaf ${c.path_in_schema} in the schema`);
    want.set(ids[p], (want.get(ids[p]) ?? 0) + Number(c.total_compressed_size));
  }
  assert.deepEqual(new Map([...sizes].sort((a, b) => a[0] - b[0])), new Map([...want].sort((a, b) => a[0] - b[0])));
});

test('counts and bounds match the source\'s min, max, nulls and NaNs', async () => {
  const { header, records } = await readAvsc(main.manifest);
  const ids = schemaIds(JSON.parse(header.schema));
  const f = records[0].data_file;
  const values = mapOf(f.value_counts);
  const nulls = mapOf(f.null_value_counts);
  const nans = mapOf(f.nan_value_counts);
  const lower = mapOf(f.lower_bounds);
  const upper = mapOf(f.upper_bounds);
  const exp = expectedMetrics(`${S}.t`);
  const problems = [];
  const check = (what, got, want) => {
    if (!Object.is(got, want) && JSON.stringify(got) !== JSON.stringify(want)) {
      problems.push(`${what}: got ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
    }
  };
  for (const leaf of LEAVES) {
    const id = ids[leaf.name];
    const x = exp.leaves[leaf.name];
    check(`value_counts[${leaf.name}]`, values.get(id), exp.rows);
    check(`null_value_counts[${leaf.name}]`, nulls.get(id), x.nulls);
    const isFloat = leaf.kind === 'float' || leaf.kind === 'double';
    check(`nan_value_counts[${leaf.name}]`, nans.get(id), isFloat ? x.nans : undefined);

    let wantMin = x.min;
    let wantMax = x.max;
    if (leaf.kind === 'string' && wantMin !== null) {
      wantMin = truncMin(Buffer.from(wantMin, 'hex').toString('utf8'));
      wantMax = truncMax(Buffer.from(wantMax, 'hex').toString('utf8'));
    } else if (leaf.kind === 'binary' && wantMin !== null) {
      wantMin = wantMin.slice(0, 32);
      wantMax = truncBinaryMax(wantMax);
    } else if (isFloat && wantMin !== null) {
      wantMin = Number(wantMin) === 0 ? -0 : Number(wantMin);
      wantMax = Number(wantMax) === 0 ? 0 : Number(wantMax);
    }
    const gotMin = lower.has(id) ? decodeBound(leaf.kind, lower.get(id)) : null;
    const gotMax = upper.has(id) ? decodeBound(leaf.kind, upper.get(id)) : null;
    check(`lower_bounds[${leaf.name}]`, gotMin, wantMin);
    check(`upper_bounds[${leaf.name}]`, gotMax, wantMax);
  }
  assert.deepEqual(problems, []);
});

test('bounds edge cases: truncation, no upper bound, surrogates, zero signs', async () => {
  const { header, records } = await readAvsc(main.manifest);
  const ids = schemaIds(JSON.parse(header.schema));
  const f = records[0].data_file;
  const lower = mapOf(f.lower_bounds);
  const upper = mapOf(f.upper_bounds);
  const str = (m, n) => (m.has(ids[n]) ? Buffer.from(m.get(ids[n])).toString('utf8') : null);
  assert.equal(str(lower, 'c_text'), 'a long string th');
  assert.equal(str(upper, 'c_text'), 'é☃😀中文字符 is longf');
  assert.equal(str(upper, 'c_text_top'), null, '17 × U+10FFFF has no upper bound');
  assert.equal(str(upper, 'c_text_surr'), `${'a'.repeat(15)}\u{E000}`, 'U+D7FF + 1 skips the surrogates');
  // 01×15 ff ff: truncated to 16 bytes, the trailing ff dropped, the last 01 incremented
  assert.equal(hex(upper.get(ids.c_bytea)), `${'01'.repeat(14)}02`);
  assert.equal(hex(lower.get(ids.c_bytea)), '000102030405060708090a0b0c0d0e0f');
  assert.ok(Object.is(Buffer.from(lower.get(ids.c_real)).readFloatLE(0), -0), 'zero lower bound is -0.0');
  assert.ok(Object.is(Buffer.from(upper.get(ids.c_real)).readFloatLE(0), 3.5));
  // decimal(10,2): -12345678.99 -> -1234567899 -> b6 69 fd 25; 14.20 -> 1420 -> 05 8c (the spec's example)
  assert.equal(hex(lower.get(ids.c_dec)), 'b669fd25');
  assert.equal(hex(upper.get(ids.c_dec)), '058c');
  assert.equal(hex(lower.get(ids.c_uuid)), '00000000000000000000000000000001');
});

test('no counts or bounds for list elements, and none for the list itself', async () => {
  const { header, records } = await readAvsc(main.manifest);
  const ids = schemaIds(JSON.parse(header.schema));
  const f = records[0].data_file;
  const elem = ids['c_list[]'];
  assert.ok(mapOf(f.column_sizes).has(elem), 'column size of the list element');
  for (const k of ['value_counts', 'null_value_counts', 'nan_value_counts', 'lower_bounds', 'upper_bounds']) {
    const m = mapOf(f[k]);
    assert.ok(!m.has(elem) && !m.has(ids.c_list), `${k} has no entry for c_list`);
    assert.ok(!m.has(ids.c_pair), `${k} has no entry for the struct c_pair itself`);
  }
  // all-null column: counts, no bounds
  assert.ok(!mapOf(f.lower_bounds).has(ids.c_null) && !mapOf(f.upper_bounds).has(ids.c_null));
  // all-NaN-or-null column: NaN count, no bounds
  assert.equal(mapOf(f.nan_value_counts).get(ids.c_nan), 2);
  assert.ok(!mapOf(f.lower_bounds).has(ids.c_nan));
});

test('icebird\'s Avro reader reads the same records', async () => {
  for (const file of [main.manifest, main.manifest_list]) {
    const a = await readAvsc(file);
    const b = readIcebird(file);
    if (file === main.manifest) assert.deepEqual(b.header.schema, JSON.parse(a.header.schema));
    assert.equal(b.records.length, a.records.length);
    // icebird gives bigints for longs, undefined for nulls and Uint8Arrays
    // for bytes; avsc numbers, null and Buffers (toJSON: {type, data})
    const plain = (v) => JSON.parse(JSON.stringify(v, (k, x) => {
      if (typeof x === 'bigint') return Number(x);
      if (x instanceof Uint8Array) return hex(x);
      if (x && x.type === 'Buffer' && Array.isArray(x.data)) return hex(Buffer.from(x.data));
      return x === undefined ? null : x;
    }));
    assert.deepEqual(plain(b.records), plain(a.records));
  }
});

test('existing and deleted entries carry their sequence numbers; the list counts them', async () => {
  const existing = exportManifest('existing', QUERY, { snapshotId: 20, seq: 5, parent: 19, status: 0 });
  let m = await readAvsc(existing.manifest);
  assert.deepEqual([m.records[0].status, m.records[0].snapshot_id, m.records[0].sequence_number,
    m.records[0].file_sequence_number], [0, 19, 4, 4]);
  let l = await readAvsc(existing.manifest_list);
  assert.deepEqual([l.records[0].sequence_number, l.records[0].min_sequence_number, l.records[0].added_snapshot_id,
    l.records[0].added_files_count, l.records[0].existing_files_count, l.records[0].existing_rows_count],
  [5, 4, 20, 0, 1, 4]);

  const deleted = exportManifest('deleted', QUERY, { snapshotId: 30, seq: 9, status: 2 });
  m = await readAvsc(deleted.manifest);
  assert.deepEqual([m.records[0].status, m.records[0].snapshot_id, m.records[0].sequence_number,
    m.records[0].file_sequence_number], [2, 30, 8, 8]);
  l = await readAvsc(deleted.manifest_list);
  assert.equal(l.header['parent-snapshot-id'], 'null');
  // no live entry with a sequence number: min_sequence_number is the snapshot's
  assert.deepEqual([l.records[0].sequence_number, l.records[0].min_sequence_number,
    l.records[0].deleted_files_count, l.records[0].deleted_rows_count, l.records[0].added_files_count],
  [9, 9, 1, 4, 0]);
});

test('an empty result: zero counts, no bounds', async () => {
  const r = exportManifest('empty', `${QUERY} LIMIT 0`);
  const { records } = await readAvsc(r.manifest);
  const f = records[0].data_file;
  assert.equal(f.record_count, 0);
  assert.ok([...mapOf(f.value_counts).values()].every((v) => v === 0));
  assert.equal(f.lower_bounds, null);
  assert.equal(f.upper_bounds, null);
});

test('DuckDB read_avro reads both files (skipped when the avro extension is unavailable)', async (t) => {
  const conn = await duck();
  try {
    await conn.run('LOAD avro');
  } catch {
    try {
      await conn.run('INSTALL avro');
      await conn.run('LOAD avro');
    } catch (e) {
      t.skip(`DuckDB avro extension not available: ${e.message.split('\n')[0]}`);
      return;
    }
  }
  const entries = await duckObjects(`SELECT status, snapshot_id, data_file.file_path AS path,
      data_file.record_count AS n, len(data_file.lower_bounds) AS nlower
      FROM read_avro(${duckLit(main.manifest)})`);
  assert.equal(entries.length, 1);
  assert.equal(entries[0].path, `file://${main.data_file}`);
  assert.equal(String(entries[0].n), '4');
  const list = await duckObjects(`SELECT manifest_path, sequence_number FROM read_avro(${duckLit(main.manifest_list)})`);
  assert.deepEqual(list.map((r) => [r.manifest_path, String(r.sequence_number)]), [[`file://${main.manifest}`, '7']]);
});
