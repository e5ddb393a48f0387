// write_parquet.test.mjs: files written by iceberg_export.write_parquet read
// back with DuckDB and hyparquet, compared value by value with the source
// query, plus checks of the Parquet footer and of failures.
//
// Needs a server with the extension installed (PGHOST, PGPORT, PGUSER) and
// IE_SCRATCH, a directory the server can write (default /tmp).

import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { canonFromPg, canonNumericText, canonRowsFromPg } from './lib/canon.mjs';
import { assertRowsEqual } from './lib/compare.mjs';
import {
  duckLit, duckObjects, parquetFileMetadataDuck, parquetMetadataDuck, parquetSchemaDuck,
} from './lib/duckdb.mjs';
import {
  ensureExtension, freshDir, removeScratch, roundTrip, scratchDir, writeParquet, writeParquetSql,
} from './lib/export.mjs';
import { ALL_TYPES, SCHEMA, STATS, dropFixtures, setupFixtures } from './lib/fixtures.mjs';
import { forEachRowGroupHyp, openHyp, pageEncodings } from './lib/hyparquet.mjs';
import { checkNode, expectedSchema, fieldIds, schemaTree } from './lib/metadata.mjs';
import {
  canonicalQuery, describeQuery, fetchCanonicalRows, lit, psql, psqlFails, psqlJson, psqlStream,
} from './lib/pg.mjs';
import { checkStats } from './lib/stats.mjs';

before(() => {
  ensureExtension();
  setupFixtures();
});

after(() => {
  dropFixtures();
  removeScratch();
});

const codecNames = { zstd: 'ZSTD', snappy: 'SNAPPY', gzip: 'GZIP', none: 'UNCOMPRESSED', uncompressed: 'UNCOMPRESSED' };

// Values ------------------------------------------------------------------

test('every type round-trips through DuckDB and hyparquet', async () => {
  const { duckTypes, columns } = await roundTrip('all_types', ALL_TYPES);
  // What DuckDB makes of each column: the Iceberg type of DESIGN.md §5.
  const want = {
    id: 'INTEGER', c_int2: 'INTEGER', c_int4: 'INTEGER', c_int8: 'BIGINT', c_float4: 'FLOAT', c_float8: 'DOUBLE',
    c_num5: 'DECIMAL(5,2)', c_num18: 'DECIMAL(18,4)', c_num20: 'DECIMAL(20,2)', c_num38: 'DECIMAL(38,10)',
    c_num: 'DECIMAL(38,9)', c_bool: 'BOOLEAN', c_text: 'VARCHAR', c_varchar: 'VARCHAR', c_char: 'VARCHAR',
    c_name: 'VARCHAR', c_enum: 'VARCHAR', c_json: 'VARCHAR', c_jsonb: 'VARCHAR', c_date: 'DATE',
    c_ts: 'TIMESTAMP', c_tstz: 'TIMESTAMP WITH TIME ZONE', c_time: 'TIME', c_uuid: 'UUID', c_bytea: 'BLOB',
    c_int_arr: 'INTEGER[]', c_text_arr: 'VARCHAR[]',
    c_pair: 'STRUCT(a INTEGER, b VARCHAR, c DECIMAL(5,2), tags VARCHAR[])',
    c_pair_arr: 'STRUCT(a INTEGER, b VARCHAR, c DECIMAL(5,2), tags VARCHAR[])[]',
    c_interval: 'VARCHAR', c_inet: 'VARCHAR', c_money: 'VARCHAR',
  };
  const got = Object.fromEntries(columns.map((c, i) => [c.name, duckTypes[i].replace(/"/g, '')]));
  assert.deepEqual(got, want, 'DuckDB column types');
});

test('domains become their base type; column names are kept as they are', async () => {
  const { duckTypes, columns } = await roundTrip('domains', `SELECT * FROM ${SCHEMA}.domains_t ORDER BY "select"`);
  assert.deepEqual(columns.map((c) => c.name), ['Amount €', 'with "quote"', 'dotted.name', 'select']);
  assert.deepEqual(duckTypes, ['DECIMAL(12,2)', 'VARCHAR', 'DECIMAL(12,2)[]', 'INTEGER']);
});

test('a row with NULL in every column, alone in its file', async () => {
  const { file, columns } = await roundTrip('all_nulls', `SELECT * FROM ${SCHEMA}.all_types WHERE id = 99`);
  const md = await parquetMetadataDuck(file);
  assert.equal(md.length, columns.reduce((n, c) => n + leafCount(c.type), 0), 'one chunk per leaf');
  for (const c of md.filter((m) => m.path_in_schema !== 'id')) {
    assert.equal(c.stats_null_count, '1', `null_count of ${c.path_in_schema}`);
    assert.equal(c.stats_min_value, null, `no min for all-null ${c.path_in_schema}`);
    assert.equal(c.stats_max_value, null, `no max for all-null ${c.path_in_schema}`);
  }
});

test('empty strings, control characters, multi-byte UTF-8 and a 10 MB value', async () => {
  await roundTrip('strings', `SELECT * FROM (VALUES
      (1, ''::text), (2, 'é☃😀中文字符 ﷽ 𝄞'), (3, repeat('é☃', 2000000)), (4, NULL),
      (5, E'tab\\t nl\\n cr\\r bell\\x07 backslash\\\\ quote'''), (6, repeat('x', 70000)), (7, ' '))
    AS t(id, s) ORDER BY id`, { rowGroupBytes: 1 << 20 });
});

test('an empty result gives a readable file with the schema and no rows', async () => {
  const { file } = await roundTrip('empty', `SELECT * FROM ${SCHEMA}.all_types WHERE false`);
  const fm = await parquetFileMetadataDuck(file);
  assert.equal(fm.num_rows, '0');
});

for (const codec of ['zstd', 'snappy', 'gzip', 'none']) {
  test(`compression ${codec}`, async () => {
    const { file } = await roundTrip(`codec_${codec}`,
      `SELECT t.*, g FROM ${SCHEMA}.all_types t, generate_series(1, 50) g ORDER BY g, id`, { compression: codec });
    const md = await parquetMetadataDuck(file);
    const codecs = [...new Set(md.map((c) => c.compression))];
    assert.deepEqual(codecs, [codecNames[codec]], 'codec of every column chunk');
    const h = openHyp(file);
    for (const rg of h.metadata.row_groups) {
      for (const c of rg.columns) assert.equal(c.meta_data.codec, codecNames[codec], `hyparquet codec of ${c.meta_data.path_in_schema.join('.')}`);
    }
  });
}

test('compression defaults to zstd', async () => {
  const file = path.join(scratchDir(), 'codec_default.parquet');
  psql(`SELECT * FROM iceberg_export.write_parquet(${lit(ALL_TYPES)}, ${lit(file)})`);
  const md = await parquetMetadataDuck(file);
  assert.deepEqual([...new Set(md.map((c) => c.compression))], ['ZSTD']);
});

test('several row groups with row_group_bytes = 65536', async () => {
  const query = `SELECT i AS id, md5(i::text) AS h, (i % 1000) / 10.0::float8 AS f,
                        CASE WHEN i % 7 = 0 THEN NULL ELSE ARRAY[i, -i] END AS arr,
                        ROW(i, 'r' || i, (i % 999) - 499.5, ARRAY['t' || i])::${SCHEMA}.pair AS p
                   FROM generate_series(1, 30000) i`;
  const { file, columns, expected } = await roundTrip('row_groups', query, { rowGroupBytes: 65536 });
  const fm = await parquetFileMetadataDuck(file);
  assert.ok(Number(fm.num_row_groups) > 1, `expected several row groups, got ${fm.num_row_groups}`);
  // Row groups partition the rows in order.
  const groups = await duckObjects(`SELECT DISTINCT row_group_id, row_group_num_rows FROM parquet_metadata(${duckLit(file)}) ORDER BY 1`);
  assert.equal(groups.reduce((s, g) => s + Number(g.row_group_num_rows), 0), 30000);
  // hyparquet, one row group at a time.
  let seen = 0;
  await forEachRowGroupHyp(file, columns, (rows, first) => {
    assert.equal(first, seen);
    assertRowsEqual(rows, expected.slice(first, first + rows.length), { columns, reader: 'hyparquet', label: 'row group read', firstRow: first });
    seen += rows.length;
  });
  assert.equal(seen, 30000);
});

// One million rows ----------------------------------------------------------

const MILLION = `SELECT i AS id,
       (i::bigint * 7919) % 1000003 AS k,
       CASE WHEN i % 97 = 0 THEN NULL ELSE 'name-' || i || CASE WHEN i % 5 = 0 THEN ' é☃😀' ELSE '' END END AS s,
       (((i % 200000) - 100000) / 100.0)::numeric(12,2) AS amount,
       timestamptz '2020-01-01 00:00:00+00' + i * interval '1.000001 second' AS ts,
       (ARRAY['active', 'past_due', 'canceled', 'trialing'])[1 + i % 4] AS status,
       CASE WHEN i % 11 = 0 THEN NULL ELSE i % 3 = 0 END AS flag,
       md5(i::text)::uuid AS u,
       i / 7.0::float8 AS f,
       date '2000-01-01' + (i % 10000) AS d
  FROM generate_series(1, 1000000) AS i`;

// Canonical text of one row, identical in Postgres and DuckDB (f excluded:
// the two print doubles differently; it is compared through hyparquet).
const PG_ROW_TEXT = `concat_ws('|', rn, id, k, coalesce(s, '\\N'), amount::text,
  (extract(epoch FROM ts) * 1000000)::bigint, status, coalesce(flag::text, '\\N'), u::text, d - date '1970-01-01')`;
const DUCK_ROW_TEXT = `concat_ws('|', file_row_number, id, k, coalesce(s, '\\N'), amount::VARCHAR,
  epoch_us(ts), status, coalesce(flag::VARCHAR, '\\N'), u::VARCHAR, d - DATE '1970-01-01')`;

test('one million rows over several row groups: aggregates and hashes agree in Postgres, DuckDB and hyparquet', async () => {
  const file = path.join(scratchDir(), 'million.parquet');
  const result = writeParquet(MILLION, file, { rowGroupBytes: 16 << 20 });
  assert.equal(result.rows, 1000000);
  assert.equal(result.bytes, fs.statSync(file).size);
  const fm = await parquetFileMetadataDuck(file);
  assert.equal(fm.num_rows, '1000000');
  assert.ok(Number(fm.num_row_groups) > 1, `expected several row groups, got ${fm.num_row_groups}`);

  // Aggregates and an order-sensitive hash (row number in every row's text).
  const pg = psqlJson(`SELECT row_to_json(a) FROM (
      SELECT count(*)::text AS n, sum(id)::text AS sum_id, sum(k)::text AS sum_k, count(s)::text AS count_s,
             min(s COLLATE "C") AS min_s, max(s COLLATE "C") AS max_s, sum(length(s))::text AS len_s,
             sum(amount)::text AS sum_amount, min(amount)::text AS min_amount, max(amount)::text AS max_amount,
             sum((extract(epoch FROM ts) * 1000000)::bigint)::text AS sum_ts,
             count(*) FILTER (WHERE status = 'past_due')::text AS past_due, count(flag)::text AS count_flag,
             count(*) FILTER (WHERE flag)::text AS true_flag, min(u::text COLLATE "C") AS min_u, max(u::text COLLATE "C") AS max_u,
             sum(d - date '1970-01-01')::text AS sum_d,
             sum(('x' || substr(md5(${PG_ROW_TEXT}), 1, 15))::bit(60)::bigint)::text AS hash,
             sum(f) AS sum_f
        FROM (SELECT row_number() OVER () - 1 AS rn, q.* FROM (${MILLION}) q) x) a`);
  const [dk] = await duckObjects(`SELECT count(*)::VARCHAR AS n, sum(id)::VARCHAR AS sum_id, sum(k)::VARCHAR AS sum_k,
             count(s)::VARCHAR AS count_s, min(s) AS min_s, max(s) AS max_s, sum(length(s))::VARCHAR AS len_s,
             sum(amount)::VARCHAR AS sum_amount, min(amount)::VARCHAR AS min_amount, max(amount)::VARCHAR AS max_amount,
             sum(epoch_us(ts))::VARCHAR AS sum_ts,
             count(*) FILTER (WHERE status = 'past_due')::VARCHAR AS past_due, count(flag)::VARCHAR AS count_flag,
             count(*) FILTER (WHERE flag)::VARCHAR AS true_flag, min(u)::VARCHAR AS min_u, max(u)::VARCHAR AS max_u,
             sum(d - DATE '1970-01-01')::VARCHAR AS sum_d,
             sum(('0x' || substr(md5(${DUCK_ROW_TEXT}), 1, 15))::BIGINT)::VARCHAR AS hash,
             sum(f) AS sum_f
        FROM read_parquet(${duckLit(file)}, file_row_number = true)`);
  const pgSumF = pg.sum_f;
  const dkSumF = Number(dk.sum_f);
  delete pg.sum_f;
  delete dk.sum_f;
  for (const k of ['sum_amount', 'min_amount', 'max_amount']) {
    pg[k] = canonNumericText(pg[k]);
    dk[k] = canonNumericText(dk[k]);
  }
  assert.deepEqual(dk, pg, 'aggregates and row hash: DuckDB vs Postgres');
  assert.ok(Math.abs(dkSumF - pgSumF) <= 1e-9 * Math.abs(pgSumF), `sum(f): DuckDB ${dkSumF}, Postgres ${pgSumF}`);

  // Every value through hyparquet: an md5 per canonical row from Postgres,
  // streamed, then the same from hyparquet, row group by row group.
  const columns = describeQuery(MILLION);
  const digestOf = (row) => crypto.createHash('md5').update(JSON.stringify(row)).digest();
  const pgDigests = Buffer.alloc(16 * 1000000);
  let n = 0;
  await psqlStream(canonicalQuery(MILLION, columns), (line) => {
    const row = JSON.parse(line).map((v, i) => canonFromPg(v, columns[i].type));
    digestOf(row).copy(pgDigests, 16 * n++);
  });
  assert.equal(n, 1000000);
  let checked = 0;
  await forEachRowGroupHyp(file, columns, (rows, first) => {
    for (let r = 0; r < rows.length; r++) {
      const at = first + r;
      if (!digestOf(rows[r]).equals(pgDigests.subarray(16 * at, 16 * at + 16))) {
        // Show the differing row in full.
        const pgRow = JSON.parse(psql(`${canonicalQuery(MILLION, columns)} OFFSET ${at} LIMIT 1`))
          .map((v, i) => canonFromPg(v, columns[i].type));
        assertRowsEqual([rows[r]], [pgRow], { columns, reader: 'hyparquet', label: 'one million rows', firstRow: at });
        assert.fail(`row ${at} differs (digest) but no value difference was found`);
      }
    }
    checked += rows.length;
  });
  assert.equal(checked, 1000000);
});

// Footer --------------------------------------------------------------------

test('schema: field ids, physical, converted and logical types', async () => {
  const file = path.join(scratchDir(), 'schema.parquet');
  writeParquet(ALL_TYPES, file);
  const columns = describeQuery(ALL_TYPES);
  const rows = await parquetSchemaDuck(file);
  const tree = schemaTree(rows);
  assert.equal(rows.length, fieldIds(tree).length + 1, 'parquet_schema rows form one tree');
  assert.deepEqual(tree.children.map((c) => c.row.name), columns.map((c) => c.name), 'top-level column names');

  const problems = [];
  columns.forEach((c, i) => checkNode(tree.children[i], expectedSchema(c.type), c.name, problems));
  assert.ok(problems.length === 0, `schema differs from the type mapping:\n  ${problems.join('\n  ')}`);

  // Field ids: 1..n on the top-level columns in order, nested ids after n,
  // every id unique; the repeated "list" level of a LIST carries none.
  const n = columns.length;
  assert.deepEqual(tree.children.map((c) => c.row.field_id == null ? null : Number(c.row.field_id)),
    columns.map((_, i) => i + 1), 'top-level field ids');
  const ids = fieldIds(tree).filter(([, , node]) => !(node.row.repetition_type === 'REPEATED' && node.row.name === 'list'));
  const missing = ids.filter(([, id]) => id === null).map(([p]) => p);
  assert.deepEqual(missing, [], 'nodes without field_id');
  const nested = ids.filter(([p]) => p.includes('.'));
  const low = nested.filter(([, id]) => id <= n).map(([p, id]) => `${p}=${id}`);
  assert.deepEqual(low, [], `nested field ids must come after the ${n} top-level ids`);
  const seen = new Map();
  for (const [p, id] of ids) {
    assert.ok(!seen.has(id), `field id ${id} used by ${seen.get(id)} and ${p}`);
    seen.set(id, p);
  }

  // hyparquet reads the same field ids from the footer.
  const h = openHyp(file);
  assert.deepEqual(h.metadata.schema.slice(1).map((e) => e.field_id ?? null), rows.slice(1).map((r) => r.field_id == null ? null : Number(r.field_id)));
});

test('created_by names the writer', async () => {
  const file = path.join(scratchDir(), 'created_by.parquet');
  writeParquet('SELECT 1 AS x', file);
  const fm = await parquetFileMetadataDuck(file);
  assert.match(fm.created_by ?? '', /iceberg_export/, `created_by is ${JSON.stringify(fm.created_by)}`);
  assert.equal(openHyp(file).metadata.created_by, fm.created_by);
});

test('encodings: dictionary for a low-cardinality column, PLAIN for high-cardinality ones', async () => {
  const file = path.join(scratchDir(), 'encodings.parquet');
  writeParquet(`SELECT (ARRAY['active', 'trialing', 'canceled'])[1 + i % 3] AS status,
                       md5(i::text) AS hash, i::bigint * 1000003 AS id
                  FROM generate_series(1, 300000) i`, file);
  const md = await parquetMetadataDuck(file);
  const byPath = (p) => md.filter((c) => c.path_in_schema === p);
  for (const c of byPath('status')) {
    assert.match(c.encodings, /(RLE|PLAIN)_DICTIONARY/, `status row group ${c.row_group_id}: encodings ${c.encodings}`);
    assert.notEqual(c.dictionary_page_offset, null, 'status has a dictionary page');
    assert.ok(Number(c.total_compressed_size) < 300000 / 4, `status chunk is ${c.total_compressed_size} bytes, dictionary-encoded it needs < 2 bits a row`);
  }
  for (const p of ['hash', 'id']) {
    for (const c of byPath(p)) {
      assert.match(c.encodings, /(^|, ?)PLAIN(,|$)/, `${p} row group ${c.row_group_id}: encodings ${c.encodings}`);
    }
  }
  // Page by page (hyparquet's page header reader): every data page of the
  // low-cardinality column uses the dictionary; the high-cardinality ones
  // may start with a dictionary but fall back to PLAIN for most values.
  for (const [g, chunks] of pageEncodings(file).entries()) {
    const data = (p) => chunks[p].filter((pg) => pg.type.startsWith('DATA_PAGE'));
    const bad = data('status').filter((pg) => !/DICTIONARY/.test(pg.encoding));
    assert.equal(bad.length, 0, `row group ${g} status: non-dictionary data pages ${JSON.stringify(bad)}`);
    for (const p of ['hash', 'id']) {
      const pages = data(p);
      const plain = pages.filter((pg) => pg.encoding === 'PLAIN').reduce((n, pg) => n + pg.num_values, 0);
      const all = pages.reduce((n, pg) => n + pg.num_values, 0);
      assert.ok(plain >= 0.75 * all, `row group ${g} ${p}: only ${plain} of ${all} values in PLAIN pages: ${JSON.stringify(pages.map((pg) => pg.encoding))}`);
    }
  }
  // The values survive either encoding.
  const [dk] = await duckObjects(`SELECT count(DISTINCT status)::VARCHAR AS s, count(DISTINCT hash)::VARCHAR AS h,
      sum(id)::VARCHAR AS id FROM ${duckLit(file)}`);
  assert.deepEqual(dk, { s: '3', h: '300000', id: String(1000003n * 300000n * 300001n / 2n) });
});

test('statistics: min, max and null_count per row group, in each type\'s order', async () => {
  const file = path.join(scratchDir(), 'stats.parquet');
  writeParquet(STATS, file, { rowGroupBytes: 65536 });
  const md = await parquetMetadataDuck(file);
  const groups = new Set(md.map((c) => c.row_group_id));
  assert.ok(groups.size > 1, `expected several row groups, got ${groups.size}`);
  const columns = describeQuery(STATS);
  const rows = canonRowsFromPg(fetchCanonicalRows(STATS, columns).rows, columns);
  const problems = checkStats(file, columns, rows, md);
  assert.ok(problems.length === 0, `statistics differ:\n  ${problems.join('\n  ')}`);
});

test('statistics at the extremes of every type', async () => {
  const file = path.join(scratchDir(), 'stats_extremes.parquet');
  writeParquet(ALL_TYPES, file);
  const columns = describeQuery(ALL_TYPES);
  const rows = canonRowsFromPg(fetchCanonicalRows(ALL_TYPES, columns).rows, columns);
  const problems = checkStats(file, columns, rows, await parquetMetadataDuck(file));
  assert.ok(problems.length === 0, `statistics differ:\n  ${problems.join('\n  ')}`);
});

/** leafCount is the number of Parquet leaf columns of a Postgres type. */
function leafCount(t) {
  if (t.kind === 'array') return leafCount(t.element);
  if (t.kind === 'composite') return t.fields.reduce((n, f) => n + leafCount(f.type), 0);
  return 1;
}

// Failures ------------------------------------------------------------------

/** assertNothingAt checks that a failed call left no file and no temp file behind. */
function assertNothingAt(dir, target) {
  assert.ok(!fs.existsSync(target), `${target} exists after a failed write_parquet`);
  const left = fs.readdirSync(dir);
  assert.deepEqual(left, [], `files left in ${dir} after a failed write_parquet`);
}

test('unknown compression is an error and writes nothing', () => {
  const dir = freshDir('err_codec');
  const target = path.join(dir, 'x.parquet');
  const err = psqlFails(writeParquetSql('SELECT 1 AS x', target, { compression: 'lz77' }));
  assert.match(err, /ERROR: .*(compression|codec)/i);
  assert.match(err, /lz77/);
  assertNothingAt(dir, target);
});

test('a relative path is an error', () => {
  const err = psqlFails(writeParquetSql('SELECT 1 AS x', 'ie_interop_relative.parquet'));
  assert.match(err, /ERROR: .*(absolute|relative)/i);
  if (process.env.IE_CLUSTER_DIR) {
    assert.ok(!fs.existsSync(path.join(process.env.IE_CLUSTER_DIR, 'data', 'ie_interop_relative.parquet')), 'file written into the data directory');
  }
});

test('an unwritable directory is an error and leaves nothing behind', () => {
  const dir = freshDir('err_readonly');
  fs.chmodSync(dir, 0o555); // owned by the test's user, not by the server's
  const target = path.join(dir, 'x.parquet');
  const err = psqlFails(writeParquetSql('SELECT 1 AS x', target));
  assert.match(err, /ERROR: /);
  assert.match(err, /x\.parquet|err_readonly/, 'the message names the path');
  assertNothingAt(dir, target);
  const missing = path.join(scratchDir(), 'no_such_dir', 'x.parquet');
  assert.match(psqlFails(writeParquetSql('SELECT 1 AS x', missing)), /ERROR: /);
  assert.ok(!fs.existsSync(path.dirname(missing)));
});

test('a query failing after some row groups were written leaves no file and no temp file', () => {
  const dir = freshDir('err_query');
  const target = path.join(dir, 'x.parquet');
  const q = `SELECT i, repeat(md5(i::text), 8) AS pad, 1 / (5000 - i) AS boom FROM generate_series(1, 10000) i`;
  const err = psqlFails(writeParquetSql(q, target, { rowGroupBytes: 65536 }));
  assert.match(err, /ERROR: +division by zero/);
  assertNothingAt(dir, target);
});

test('a failing query does not replace an existing file', () => {
  const dir = freshDir('err_keep');
  const target = path.join(dir, 'x.parquet');
  fs.writeFileSync(target, 'previous contents');
  psqlFails(writeParquetSql('SELECT 1 / (i - 3) FROM generate_series(1, 5) i', target));
  assert.equal(fs.readFileSync(target, 'utf8'), 'previous contents');
  assert.deepEqual(fs.readdirSync(dir), ['x.parquet'], 'no temp file left');
});

test('unconstrained numeric beyond decimal(38,9) is an error, not a rounded value', () => {
  for (const v of ['1.0000000001', '-0.0000000001', '123456789012345678901234567890']) {
    const dir = freshDir('err_numeric');
    const target = path.join(dir, 'x.parquet');
    const err = psqlFails(writeParquetSql(`SELECT ${v}::numeric AS n`, target));
    assert.match(err, /ERROR: /, `numeric ${v}`);
    assertNothingAt(dir, target);
  }
});

test('numeric NaN is an error, not a silent NULL', () => {
  const dir = freshDir('err_nan');
  const target = path.join(dir, 'x.parquet');
  const err = psqlFails(writeParquetSql(`SELECT 'NaN'::numeric(5,2) AS n`, target));
  assert.match(err, /ERROR: /);
  assertNothingAt(dir, target);
});

test('a timestamp beyond the int64 microsecond range is an error, not a wrapped value', () => {
  // The last one equals INT64_MAX micros, the sentinel for infinity.
  for (const v of ["timestamp '294276-12-31 23:59:59.999999'", "timestamptz '294276-12-31 23:59:59.999999+00'",
    "timestamp '294247-01-10 04:00:54.775807'"]) {
    const dir = freshDir('err_ts');
    const target = path.join(dir, 'x.parquet');
    const err = psqlFails(writeParquetSql(`SELECT ${v} AS ts`, target));
    assert.match(err, /ERROR: /, v);
    assertNothingAt(dir, target);
  }
});

test('a multi-dimensional array is an error', () => {
  const dir = freshDir('err_md');
  const target = path.join(dir, 'x.parquet');
  const err = psqlFails(writeParquetSql(`SELECT '{{1,2},{3,4}}'::int[] AS a`, target));
  assert.match(err, /ERROR: .*dimension/i);
  assertNothingAt(dir, target);
});
