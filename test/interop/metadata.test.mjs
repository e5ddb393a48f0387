// metadata.test.mjs: Iceberg v2 table metadata JSON made by
// src/iceberg/metadata.c, metadata_ops.c and schema_json.c, checked
// against the spec (digest §2, §6.1, §6.5, §8): required fields and their
// types, sequence numbers, parents, refs, snapshot and metadata logs,
// expiry, schema ids and evolution, parse errors.  icebird loads the files
// as an independent reader.
//
// Uses the test-only functions of test/interop/sql/debug_metadata.sql.
// Needs a server with the extension installed (PGHOST, PGPORT, PGUSER) and
// IE_SCRATCH.

import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { icebergMetadata } from 'icebird';

import { ensureExtension, freshDir, removeScratch } from './lib/export.mjs';
import { installFileFetch } from './lib/iceberg.mjs';
import { lit, psql, psqlFails } from './lib/pg.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const F = 'iceberg_export._debug_metadata';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const UUID_PART = '[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}';
const LOCATION = 's3://bucket/warehouse/ns/demo';
const TS = [1700000000000, 1700000100000, 1700000200000];
const FIRST_ID = 3051729675574597004n;

// Java's TableMetadataParser key order (digest §2.1), v2.
const KEY_ORDER = [
  'format-version', 'table-uuid', 'location', 'last-sequence-number', 'last-updated-ms',
  'last-column-id', 'current-schema-id', 'schemas', 'default-spec-id', 'partition-specs',
  'last-partition-id', 'default-sort-order-id', 'sort-orders', 'properties',
  'current-snapshot-id', 'refs', 'snapshots', 'statistics', 'partition-statistics',
  'snapshot-log', 'metadata-log',
];

const COUNTERS = [
  'added-data-files', 'added-records', 'added-files-size', 'deleted-data-files',
  'deleted-records', 'removed-files-size', 'total-records', 'total-files-size',
  'total-data-files', 'total-delete-files', 'total-position-deletes', 'total-equality-deletes',
];

// The digest's §2.2 example (Java's TableMetadataV2Valid.json).
const EXAMPLE = `{
  "format-version": 2,
  "table-uuid": "9c12d441-03fe-4693-9a96-a0705ddf69c1",
  "location": "s3://bucket/test/location",
  "last-sequence-number": 2,
  "last-updated-ms": 1602638573590,
  "last-column-id": 3,
  "current-schema-id": 1,
  "schemas": [
    {"type": "struct", "schema-id": 0,
     "fields": [{"id": 1, "name": "x", "required": true, "type": "long"}]},
    {"type": "struct", "schema-id": 1, "identifier-field-ids": [1, 2],
     "fields": [{"id": 1, "name": "x", "required": true, "type": "long"},
                {"id": 2, "name": "y", "required": true, "type": "long", "doc": "comment"},
                {"id": 3, "name": "z", "required": true, "type": "long"}]}
  ],
  "default-spec-id": 0,
  "partition-specs": [
    {"spec-id": 0, "fields": [{"name": "x", "transform": "identity", "source-id": 1, "field-id": 1000}]}
  ],
  "last-partition-id": 1000,
  "default-sort-order-id": 3,
  "sort-orders": [
    {"order-id": 3, "fields": [
      {"transform": "identity", "source-id": 2, "direction": "asc", "null-order": "nulls-first"},
      {"transform": "bucket[4]", "source-id": 3, "direction": "desc", "null-order": "nulls-last"}]}
  ],
  "properties": {},
  "current-snapshot-id": 3055729675574597004,
  "refs": {"main": {"snapshot-id": 3055729675574597004, "type": "branch"}},
  "snapshots": [
    {"snapshot-id": 3051729675574597004, "timestamp-ms": 1515100955770, "sequence-number": 1,
     "summary": {"operation": "append"}, "manifest-list": "s3://a/b/1.avro"},
    {"snapshot-id": 3055729675574597004, "parent-snapshot-id": 3051729675574597004,
     "timestamp-ms": 1555100955770, "sequence-number": 2,
     "summary": {"operation": "append"}, "manifest-list": "s3://a/b/2.avro", "schema-id": 1}
  ],
  "statistics": [],
  "partition-statistics": [],
  "snapshot-log": [
    {"snapshot-id": 3051729675574597004, "timestamp-ms": 1515100955770},
    {"snapshot-id": 3055729675574597004, "timestamp-ms": 1555100955770}
  ],
  "metadata-log": []
}`;

/*
 * parseBig parses JSON keeping integers beyond 2^53 exact: they become
 * BigInt (snapshot ids are 63-bit), smaller ones stay numbers.
 */
function parseBig(text) {
  const marked = text.replace(/([:[,]\s*)(-?\d{16,})(?=\s*[,\]}])/g, '$1"__big__$2"');
  return JSON.parse(marked, (k, v) => {
    if (typeof v === 'string' && v.startsWith('__big__')) return BigInt(v.slice(7));
    return v;
  });
}

/** big makes a JSON integer (number or BigInt) a BigInt. */
const big = (v) => BigInt(v);

/** sql calls a debug function and parses the JSON text it returns. */
function call(fn, ...args) {
  return parseBig(psql(`SELECT ${F}_${fn}(${args.join(', ')})`));
}

/** fails runs a debug call that must fail and returns psql's verbose stderr. */
function fails(fn, ...args) {
  return psqlFails(`\\set VERBOSITY verbose\nSELECT ${F}_${fn}(${args.join(', ')})`);
}

/** demo runs _debug_metadata_demo with optional overrides. */
function demo({ ts = TS, cutoff = 1700000150000, minKeep = 1, versionsMax = 2 } = {}) {
  return call('demo', lit(LOCATION), `ARRAY[${ts.join(',')}]::bigint[]`, String(cutoff),
    String(minKeep), String(versionsMax));
}

/** toText serializes JSON with BigInt values written as exact integers. */
function toText(value) {
  return JSON.stringify(value, (k, v) => (typeof v === 'bigint' ? `__big__${v}` : v))
    .replace(/"__big__(-?\d+)"/g, '$1');
}

/** mutate returns a copy of the example changed by fn, as JSON text with exact ids. */
function mutate(fn) {
  const m = parseBig(EXAMPLE);
  fn(m);
  return toText(m);
}

/** checkRequiredV2 asserts the fields the spec requires of v2 metadata, with their JSON types. */
function checkRequiredV2(m) {
  assert.equal(m['format-version'], 2);
  assert.match(m['table-uuid'], /^[0-9a-f-]{36}$/);
  assert.equal(typeof m.location, 'string');
  for (const k of ['last-sequence-number', 'last-updated-ms', 'last-column-id', 'current-schema-id',
    'default-spec-id', 'last-partition-id', 'default-sort-order-id']) {
    assert.ok(Number.isInteger(Number(m[k])), `${k} is an integer`);
  }
  for (const k of ['schemas', 'partition-specs', 'sort-orders', 'snapshots', 'snapshot-log', 'metadata-log',
    'statistics', 'partition-statistics']) {
    assert.ok(Array.isArray(m[k]), `${k} is an array`);
  }
  assert.equal(m.schema, undefined, 'no v1 "schema"');
  assert.equal(m['partition-spec'], undefined, 'no v1 "partition-spec"');
  assert.ok(m.schemas.some((s) => s['schema-id'] === m['current-schema-id']), 'current schema listed');
  assert.ok(m['partition-specs'].some((s) => s['spec-id'] === m['default-spec-id']), 'default spec listed');
  assert.ok(m['sort-orders'].some((s) => s['order-id'] === m['default-sort-order-id']), 'default order listed');
  for (const v of Object.values(m.properties)) assert.equal(typeof v, 'string');
  const current = big(m['current-snapshot-id']);
  if (current === -1n) {
    assert.equal(m.refs.main, undefined, 'no main branch without a snapshot');
  } else {
    assert.equal(big(m.refs.main['snapshot-id']), current, 'refs.main = current-snapshot-id');
    assert.equal(m.refs.main.type, 'branch');
  }
  let maxSeq = 0n;
  for (const s of m.snapshots) {
    assert.ok(big(s['snapshot-id']) > 0n);
    assert.equal(typeof s['manifest-list'], 'string');
    assert.equal(typeof s.summary.operation, 'string');
    for (const v of Object.values(s.summary)) assert.equal(typeof v, 'string', 'summary values are strings');
    if (big(s['sequence-number']) > maxSeq) maxSeq = big(s['sequence-number']);
  }
  assert.ok(big(m['last-sequence-number']) >= maxSeq, 'last-sequence-number >= every snapshot\'s');
}

/** schemaIds lists every field, element, key and value id of a schema. */
function schemaIds(type) {
  if (typeof type === 'string') return [];
  if (type.type === 'struct') return type.fields.flatMap((f) => [f.id, ...schemaIds(f.type)]);
  if (type.type === 'list') return [type['element-id'], ...schemaIds(type.element)];
  return [type['key-id'], type['value-id'], ...schemaIds(type.key), ...schemaIds(type.value)];
}

let D;		// the default demo run

before(() => {
  ensureExtension();
  psql(fs.readFileSync(path.join(HERE, 'sql', 'debug_metadata.sql'), 'utf8'));
  D = demo();
});

after(() => removeScratch());

test('a new table has every required v2 field, empty lists and the requested properties', () => {
  const m = D.versions[0];
  checkRequiredV2(m);
  assert.deepEqual(Object.keys(m), KEY_ORDER, 'keys in Java\'s order');
  assert.match(m['table-uuid'], UUID);
  assert.equal(m.location, LOCATION);
  assert.equal(m['last-sequence-number'], 0);
  assert.equal(m['last-updated-ms'], TS[0] - 1000);
  assert.equal(m['last-column-id'], 11);
  assert.equal(m['current-schema-id'], 0);
  assert.deepEqual(m['partition-specs'], [{ 'spec-id': 0, fields: [] }]);
  assert.equal(m['last-partition-id'], 999);
  assert.deepEqual(m['sort-orders'], [{ 'order-id': 0, fields: [] }]);
  assert.deepEqual(m.properties, {
    'write.metadata.delete-after-commit.enabled': 'true',
    'write.metadata.previous-versions-max': '2',
    'write.parquet.compression-codec': 'zstd',
  });
  assert.equal(m['current-snapshot-id'], -1);
  assert.deepEqual(m.refs, {});
  for (const k of ['snapshots', 'snapshot-log', 'metadata-log', 'statistics', 'partition-statistics']) {
    assert.deepEqual(m[k], [], k);
  }
});

test('schema JSON: field ids, list element ids, nested struct, types as in Appendix C', () => {
  const s = D.versions[0].schemas[0];
  assert.deepEqual(Object.keys(s), ['type', 'schema-id', 'fields']);
  assert.deepEqual(s, {
    type: 'struct', 'schema-id': 0, fields: [
      { id: 1, name: 'id', required: true, type: 'int' },
      { id: 2, name: 'amount', required: false, type: 'long' },
      { id: 3, name: 'name', required: false, type: 'string' },
      { id: 4, name: 'price', required: false, type: 'decimal(12,2)' },
      { id: 5, name: 'created_at', required: false, type: 'timestamptz' },
      { id: 6, name: 'key', required: false, type: 'uuid' },
      { id: 7, name: 'tags', required: false,
        type: { type: 'list', 'element-id': 9, 'element-required': false, element: 'string' } },
      { id: 8, name: 'address', required: false, type: { type: 'struct', fields: [
        { id: 10, name: 'city', required: false, type: 'string' },
        { id: 11, name: 'zip', required: true, type: 'int' }] } },
    ],
  });
  const ids = schemaIds(s);
  assert.equal(new Set(ids).size, ids.length, 'ids are unique');
  assert.equal(Math.max(...ids), D.versions[0]['last-column-id']);
});

test('snapshots: sequence numbers, parent chain, refs.main, snapshot-log and summaries', () => {
  for (let v = 1; v <= TS.length; v++) {
    const m = D.versions[v];
    checkRequiredV2(m);
    assert.deepEqual(Object.keys(m), KEY_ORDER);
    assert.equal(m.snapshots.length, v);
    assert.equal(m['last-sequence-number'], v);
    assert.equal(m['last-updated-ms'], TS[v - 1], 'last-updated-ms is the commit time');
    assert.equal(big(m['current-snapshot-id']), FIRST_ID + BigInt(v - 1));
    assert.equal(m['table-uuid'], D.versions[0]['table-uuid'], 'table-uuid never changes');
  }
  const m = D.versions[TS.length];
  m.snapshots.forEach((s, i) => {
    const id = FIRST_ID + BigInt(i);
    assert.equal(big(s['snapshot-id']), id);
    assert.equal(s['sequence-number'], i + 1, 'sequence-number = last + 1');
    assert.equal(s['timestamp-ms'], TS[i]);
    assert.equal(s['schema-id'], 0);
    if (i === 0) assert.equal(s['parent-snapshot-id'], undefined, 'the first snapshot has no parent');
    else assert.equal(big(s['parent-snapshot-id']), id - 1n, 'parent is the previous current snapshot');
    assert.match(s['manifest-list'], new RegExp(`^${LOCATION}/metadata/snap-${id}-1-${UUID_PART}\\.avro$`));
    assert.equal(s.summary.operation, i === 0 ? 'append' : 'overwrite');
    for (const k of COUNTERS) assert.match(s.summary[k], /^-?\d+$/, `summary ${k}`);
    assert.equal(s.summary['added-records'], String(10 * (i + 1)));
    assert.equal(s.summary['deleted-records'], String(10 * i));
    assert.equal(s.summary['total-records'], String(10 * (i + 1)), 'total = previous + added - deleted');
    assert.equal(s.summary['total-files-size'], String(1000 * (i + 1)));
    assert.equal(s.summary['total-data-files'], '1');
    assert.equal(s.summary['total-delete-files'], '0');
    assert.equal(s.summary['iceberg-export.run-id'], `run-${i + 1}`);
  });
  assert.deepEqual(m['snapshot-log'].map((e) => [big(e['snapshot-id']), e['timestamp-ms']]),
    m.snapshots.map((s) => [big(s['snapshot-id']), s['timestamp-ms']]), 'snapshot-log follows the snapshots');
});

test('metadata files are named NNNNN-<uuid>.metadata.json; metadata-log is trimmed to previous-versions-max', () => {
  const files = D['metadata-files'];
  assert.equal(files.length, TS.length + 2);
  files.forEach((f, i) => {
    assert.match(f, new RegExp(`^${LOCATION}/metadata/${String(i).padStart(5, '0')}-${UUID_PART}\\.metadata\\.json$`));
  });
  assert.equal(new Set(files).size, files.length, 'every file name is new');
  for (let v = 1; v < D.versions.length; v++) {
    const log = D.versions[v]['metadata-log'];
    assert.ok(log.length <= 2, `version ${v}: at most previous-versions-max entries`);
    assert.deepEqual(log.at(-1), { 'timestamp-ms': D.versions[v - 1]['last-updated-ms'], 'metadata-file': files[v - 1] },
      `version ${v} logs the previous file with its last-updated-ms`);
    assert.deepEqual(log.map((e) => e['metadata-file']), files.slice(Math.max(0, v - 2), v));
  }
  assert.deepEqual(D['dropped-metadata-files'], files.slice(0, 2), 'the files that fell off the log, oldest first');
  assert.deepEqual(D.metadata['metadata-log'], D.versions.at(-1)['metadata-log']);
});

test('expiry removes exactly the snapshots older than the cutoff and keeps the current one', () => {
  const m = D.metadata;
  checkRequiredV2(m);
  assert.deepEqual(D.expired.map((e) => big(e['snapshot-id'])), [FIRST_ID, FIRST_ID + 1n]);
  const before = D.versions[TS.length].snapshots;
  assert.deepEqual(D.expired.map((e) => e['manifest-list']), before.slice(0, 2).map((s) => s['manifest-list']),
    'expired snapshots come with their manifest lists');
  assert.deepEqual(m.snapshots, before.slice(2), 'the current snapshot is kept unchanged');
  assert.equal(big(m['current-snapshot-id']), FIRST_ID + 2n);
  assert.equal(big(m.refs.main['snapshot-id']), FIRST_ID + 2n);
  assert.deepEqual(m['snapshot-log'].map((e) => big(e['snapshot-id'])), [FIRST_ID + 2n]);
  assert.equal(m['last-sequence-number'], 3, 'expiry keeps last-sequence-number');
});

test('expiry: cutoff before every snapshot, min_keep, the current snapshot always kept', () => {
  assert.deepEqual(demo({ cutoff: TS[0] }).expired, [], 'nothing older than the cutoff');
  const all = demo({ cutoff: TS[2] + 10 ** 9 });
  assert.deepEqual(all.expired.map((e) => big(e['snapshot-id'])), [FIRST_ID, FIRST_ID + 1n]);
  assert.equal(all.metadata.snapshots.length, 1, 'the current snapshot survives any cutoff');
  const keep2 = demo({ cutoff: TS[2] + 10 ** 9, minKeep: 2 });
  assert.deepEqual(keep2.expired.map((e) => big(e['snapshot-id'])), [FIRST_ID]);
  assert.deepEqual(keep2.metadata['snapshot-log'].map((e) => big(e['snapshot-id'])), [FIRST_ID + 1n, FIRST_ID + 2n]);
  const none = demo({ ts: [] });
  assert.deepEqual(none.expired, []);
  assert.deepEqual(none.metadata.snapshots, []);
});

test('expiry keeps a tagged snapshot and cuts the snapshot-log before a removed one', () => {
  const tagged = mutate((m) => { m.refs.v1 = { 'snapshot-id': FIRST_ID, type: 'tag' }; });
  const r1 = call('expire', lit(tagged), '9999999999999', '1');
  assert.deepEqual(r1.expired, [], 'the tag keeps the first snapshot');
  assert.deepEqual(r1.metadata.refs.v1, { 'snapshot-id': FIRST_ID, type: 'tag' });
  const r2 = call('expire', lit(EXAMPLE), '9999999999999', '1');
  assert.deepEqual(r2.expired, [{ 'snapshot-id': FIRST_ID, 'manifest-list': 's3://a/b/1.avro' }]);
  assert.deepEqual(r2.metadata.snapshots.map((s) => big(s['snapshot-id'])), [3055729675574597004n]);
  assert.deepEqual(r2.metadata['snapshot-log'].map((e) => big(e['snapshot-id'])), [3055729675574597004n]);
  // an older snapshot that is not an ancestor but newer than the cutoff stays
  const orphan = mutate((m) => {
    m.snapshots.push({ 'snapshot-id': 7n, 'timestamp-ms': 1600000000000, 'sequence-number': 2,
      summary: { operation: 'append' }, 'manifest-list': 's3://a/b/7.avro' });
  });
  const r3 = call('expire', lit(orphan), '1590000000000', '1');
  assert.deepEqual(r3.expired.map((e) => big(e['snapshot-id'])), [FIRST_ID]);
  assert.ok(r3.metadata.snapshots.some((s) => big(s['snapshot-id']) === 7n));
});

test('schema evolution: a new schema id, ids of old columns unchanged, equal schemas reused', () => {
  const m = D.metadata;
  assert.deepEqual(D['schema-ids'], [1, 1], 'adding the same schema again reuses it');
  assert.equal(m.schemas.length, 2);
  assert.equal(m['current-schema-id'], 1);
  const [s0, s1] = m.schemas;
  assert.deepEqual(s0, D.versions[0].schemas[0], 'schema 0 is kept as it was');
  assert.deepEqual(s1.fields.slice(0, -1), s0.fields, 'old fields keep their ids');
  assert.deepEqual(s1.fields.at(-1), { id: 12, name: 'note', required: false, type: 'string' });
  assert.equal(m['last-column-id'], 12);
  assert.equal(m.snapshots[0]['schema-id'], 0, 'snapshots keep the schema they were written with');
  assert.equal(m.properties['iceberg-export.last-run-id'], 'run-3');

  // dropping a column keeps the other ids; a new column must take a fresh id
  const dropped = JSON.stringify({ type: 'struct', fields: [
    { id: 1, name: 'x', required: true, type: 'long' }, { id: 3, name: 'z', required: true, type: 'long' }] });
  const e = call('add_schema', lit(EXAMPLE), lit(dropped));
  assert.equal(e['current-schema-id'], 2);
  assert.equal(e.schemas[2]['schema-id'], 2);
  assert.equal(e['last-column-id'], 3);
  const reused = JSON.stringify({ type: 'struct', fields: [{ id: 1, name: 'x', required: true, type: 'long' }] });
  assert.equal(call('add_schema', lit(EXAMPLE), lit(reused))['current-schema-id'], 0, 'schema 0 is reused');
  const added = JSON.stringify({ type: 'struct', fields: [
    { id: 1, name: 'x', required: true, type: 'long' }, { id: 4, name: 'w', required: false, type: 'date' }] });
  const a = call('add_schema', lit(EXAMPLE), lit(added));
  assert.equal(a['last-column-id'], 4);
  const bad = JSON.stringify({ type: 'struct', fields: [
    { id: 1, name: 'x', required: true, type: 'long' }, { id: 9, name: 'w', required: false, type: 'date' }] });
  const grown = call('add_schema', lit(EXAMPLE), lit(bad));
  assert.equal(grown['last-column-id'], 9);
  const reuse = mutate((m2) => { m2['last-column-id'] = 5; });
  const err = fails('add_schema', lit(reuse), lit(JSON.stringify({ type: 'struct', fields: [
    { id: 4, name: 'w', required: false, type: 'date' }] })));
  assert.match(err, /22023: new Iceberg field id 4 is not above last-column-id 5/);
  const dup = fails('add_schema', lit(EXAMPLE), lit(JSON.stringify({ type: 'struct', fields: [
    { id: 1, name: 'x', required: true, type: 'long' }, { id: 1, name: 'y', required: true, type: 'long' }] })));
  assert.match(dup, /uses field id 1 more than once/);
});

test('the §2.2 example round-trips unchanged in meaning, compact and pretty', () => {
  const compact = psql(`SELECT ${F}_roundtrip(${lit(EXAMPLE)})`);
  assert.deepEqual(parseBig(compact), parseBig(EXAMPLE));
  assert.ok(!compact.includes('\n'), 'compact is one line');
  assert.deepEqual(Object.keys(parseBig(compact)), KEY_ORDER);
  const pretty = psql(`SELECT ${F}_roundtrip(${lit(EXAMPLE)}, true)`);
  assert.deepEqual(parseBig(pretty), parseBig(EXAMPLE));
  assert.ok(pretty.split('\n').length > 50, 'pretty is indented');
  assert.equal(psql(`SELECT ${F}_roundtrip(${lit(compact)})`), compact, 'serializing is deterministic');
  // keys the model does not know are kept
  const extra = call('roundtrip', lit(mutate((m) => { m['x-vendor'] = { a: [1] }; })));
  assert.deepEqual(extra['x-vendor'], { a: [1] });
  assert.equal(Object.keys(extra).at(-1), 'x-vendor', 'after the known keys');
});

test('parsing fills in what Java always writes: lists, refs.main, -1 for no snapshot', () => {
  const minimal = mutate((m) => {
    for (const k of ['refs', 'statistics', 'partition-statistics', 'snapshot-log', 'metadata-log', 'properties']) delete m[k];
  });
  const r = call('roundtrip', lit(minimal));
  checkRequiredV2(r);
  assert.deepEqual(r.refs, { main: { 'snapshot-id': 3055729675574597004n, type: 'branch' } });
  assert.deepEqual(r.properties, {});
  const empty = mutate((m) => {
    m.snapshots = []; m['snapshot-log'] = []; m.refs = {}; m['current-snapshot-id'] = null;
  });
  assert.equal(call('roundtrip', lit(empty))['current-snapshot-id'], -1);
});

test('malformed or unsupported metadata is rejected with a clear error', () => {
  const cases = [
    ['not JSON', '{"format-version": 2,', /22032: invalid Iceberg table metadata JSON[\s\S]*DETAIL: +Line 1/],
    ['duplicate key', '{"format-version": 2, "format-version": 2}', /22032: invalid Iceberg table metadata JSON[\s\S]*duplicate/],
    ['an array', '[]', /XX001: invalid Iceberg table metadata[\s\S]*not a JSON object/],
    ['format-version 1', mutate((m) => { m['format-version'] = 1; }), /0A000: unsupported Iceberg format-version 1/],
    ['format-version 3', mutate((m) => { m['format-version'] = 3; }), /0A000: unsupported Iceberg format-version 3/],
    ['no table-uuid', mutate((m) => { delete m['table-uuid']; }), /XX001:[\s\S]*"table-uuid" is missing/],
    ['bad uuid', mutate((m) => { m['table-uuid'] = 'nope'; }), /XX001:[\s\S]*not a UUID/],
    ['string sequence number', mutate((m) => { m['last-sequence-number'] = '2'; }), /"last-sequence-number" is of the wrong type/],
    ['missing current schema', mutate((m) => { m['current-schema-id'] = 7; }), /current-schema-id 7 is not in "schemas"/],
    ['unknown type', mutate((m) => { m.schemas[0].fields[0].type = 'varchar'; }), /XX001: invalid Iceberg schema[\s\S]*schema 0.x: unknown type "varchar"/],
    ['decimal too wide', mutate((m) => { m.schemas[0].fields[0].type = 'decimal(39,2)'; }), /unsupported type "decimal\(39,2\)"/],
    ['duplicate field ids', mutate((m) => { m.schemas[1].fields[2].id = 2; }), /uses field id 2 more than once/],
    ['id above last-column-id', mutate((m) => { m['last-column-id'] = 2; }), /field id 3, above last-column-id 2/],
    ['dangling current snapshot', mutate((m) => { m['current-snapshot-id'] = 5n; m.refs.main['snapshot-id'] = 5n; }), /current-snapshot-id 5 is not in "snapshots"/],
    ['refs.main elsewhere', mutate((m) => { m.refs.main['snapshot-id'] = FIRST_ID; }), /refs.main does not point to current-snapshot-id/],
    ['sequence number ahead', mutate((m) => { m['last-sequence-number'] = 1; }), /sequence-number is above last-sequence-number 1/],
    ['no manifest-list', mutate((m) => { delete m.snapshots[0]['manifest-list']; }), /snapshots\[0\]: "manifest-list" is missing/],
    ['no operation', mutate((m) => { m.snapshots[1].summary = {}; }), /snapshots\[1\]: "summary" with an "operation" is missing/],
    ['duplicate snapshot', mutate((m) => { m.snapshots[1]['snapshot-id'] = FIRST_ID; m['current-snapshot-id'] = FIRST_ID; m.refs.main['snapshot-id'] = FIRST_ID; }), /snapshot-id 3051729675574597004 appears more than once/],
    ['number property', mutate((m) => { m.properties.a = 1; }), /Property "a" is not a string/],
  ];
  for (const [name, json, want] of cases) {
    assert.match(fails('roundtrip', lit(json)), want, name);
  }
});

test('adding a snapshot to parsed metadata: next sequence number, parent, totals only from a parent with totals', () => {
  const r = call('add_snapshot', lit(EXAMPLE), 'NULL', '1700000000000', "'overwrite'", "'s3://a/b/3.avro'",
    "'{2,100,5000,0,0,0}'", "'run-x'");
  checkRequiredV2(r);
  const s = r.snapshots.at(-1);
  assert.ok(big(s['snapshot-id']) > 0n && big(s['snapshot-id']) !== FIRST_ID);
  assert.equal(s['sequence-number'], 3);
  assert.equal(r['last-sequence-number'], 3);
  assert.equal(big(s['parent-snapshot-id']), 3055729675574597004n);
  assert.equal(s['schema-id'], 1, 'the current schema');
  assert.equal(big(r['current-snapshot-id']), big(s['snapshot-id']));
  assert.equal(big(r.refs.main['snapshot-id']), big(s['snapshot-id']));
  assert.deepEqual(r['snapshot-log'].at(-1), { 'timestamp-ms': 1700000000000, 'snapshot-id': s['snapshot-id'] });
  assert.equal(s.summary['added-records'], '100');
  assert.equal(s.summary['total-records'], undefined, 'the parent has no totals, so none are made up');
  assert.equal(s.summary['iceberg-export.run-id'], 'run-x');
  const dup = fails('add_snapshot', lit(EXAMPLE), String(FIRST_ID), '1', "'append'", "'s3://x.avro'");
  assert.match(dup, /42710: Iceberg snapshot 3051729675574597004 already exists/);
});

test('properties: set, remove, reserved names refused', () => {
  const set = call('set_property', lit(EXAMPLE), "'write.metadata.previous-versions-max'", "'5'");
  assert.equal(set.properties['write.metadata.previous-versions-max'], '5');
  const removed = call('set_property', lit(toText(set)), "'write.metadata.previous-versions-max'", 'NULL');
  assert.deepEqual(removed.properties, {});
  assert.match(fails('set_property', lit(EXAMPLE), "'format-version'", "'3'"), /22023: Iceberg table property "format-version" is reserved/);
});

test('schemas through the C structs: map, fixed, decimal spacing, every primitive', () => {
  const schema = { type: 'struct', 'schema-id': 4, fields: [
    { id: 1, name: 'b', required: true, type: 'boolean' },
    { id: 2, name: 'f', required: false, type: 'float' },
    { id: 3, name: 'd', required: false, type: 'double' },
    { id: 4, name: 'dt', required: false, type: 'date' },
    { id: 5, name: 't', required: false, type: 'time' },
    { id: 6, name: 'ts', required: false, type: 'timestamp' },
    { id: 7, name: 'bin', required: false, type: 'binary' },
    { id: 8, name: 'fx', required: false, type: 'fixed[16]' },
    { id: 9, name: 'dec', required: false, type: 'decimal(9, 2)' },
    { id: 10, name: 'm', required: false, type: { type: 'map', 'key-id': 11, key: 'string', 'value-id': 12,
      'value-required': false, value: { type: 'list', 'element-id': 13, 'element-required': true, element: 'long' } } },
  ] };
  const back = JSON.parse(psql(`SELECT iceberg_export._debug_schema_roundtrip(${lit(JSON.stringify(schema))})`));
  schema.fields[8].type = 'decimal(9,2)';
  assert.deepEqual(back, schema);
});

test('file name helpers: metadata file, manifest list, manifest', () => {
  const r = call('file_names', lit('s3://b/t/'), '7', '123');
  assert.equal(r.version, 7, 'the version parses back from the name');
  assert.match(r.uuid, UUID);
  assert.match(r['metadata-file'], new RegExp(`^s3://b/t/metadata/00007-${UUID_PART}\\.metadata\\.json$`));
  assert.equal(r['manifest-list'], `s3://b/t/metadata/snap-123-1-${r.uuid}.avro`);
  assert.equal(r.manifest, `s3://b/t/metadata/${r.uuid}-m0.avro`);
});

test('icebird loads every metadata version and finds the current schema', async () => {
  installFileFetch();
  const dir = freshDir('metadata_icebird');
  fs.mkdirSync(path.join(dir, 'metadata'), { recursive: true });
  const tableUrl = pathToFileURL(dir).href;
  const versions = [...D.versions.slice(0, -1), D.metadata];
  const texts = versions.map(toText);
  for (let i = 0; i < texts.length; i++) {
    const name = path.basename(D['metadata-files'][i]);
    fs.writeFileSync(path.join(dir, 'metadata', name), texts[i]);
    const m = await icebergMetadata({ tableUrl, metadataFileName: name });
    assert.equal(m['format-version'], 2);
    assert.equal(m['table-uuid'], versions[i]['table-uuid']);
    const schema = m.schemas.find((s) => s['schema-id'] === m['current-schema-id']);
    assert.ok(schema, 'icebird finds the current schema');
    if (m['current-snapshot-id'] !== -1) {
      assert.ok(m.snapshots.find((s) => s['snapshot-id'] === m['current-snapshot-id']), 'and the current snapshot');
    }
  }
});
