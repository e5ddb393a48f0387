// sync.test.mjs: iceberg_sync() into the embedded default (a local warehouse
// and the catalog in Postgres), read back whole by icebird and checked value
// by value against the source rows; the snapshot chain, expiry, a failure
// between publish and commit, and errors.

import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import avro from 'avsc';
import { freshDir, removeScratch } from './lib/export.mjs';
import { readIcebergTable, readMetadata } from './lib/iceberg.mjs';
import { lit, psql, psqlFails, psqlJson } from './lib/pg.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TABLES = ['addons', 'customers', 'features', 'plans', 'prices', 'products',
  'subscription_addons', 'subscriptions'];
let warehouse;

before(() => {
  psql('CREATE EXTENSION IF NOT EXISTS iceberg_export');
  psql('DROP SCHEMA IF EXISTS billing CASCADE');
  psql(`DELETE FROM iceberg_export.entities WHERE source_schema = 'billing'`);
  psql(`DELETE FROM iceberg_export.destinations WHERE name = 'it_lake'`);
  psql(`DELETE FROM iceberg_export.iceberg_tables WHERE catalog_name = 'it_lake'`);
  psql(fs.readFileSync(path.join(ROOT, 'sample/billing_schema.sql'), 'utf8'));
  psql(`\\set customers 300\n${fs.readFileSync(path.join(ROOT, 'sample/generate.sql'), 'utf8')}`);
  warehouse = freshDir('warehouse');
  psql(`SELECT iceberg_export.create_destination('it_lake',
          options => jsonb_build_object('warehouse', ${lit(warehouse)}))`);
});

after(() => {
  psql(`DELETE FROM iceberg_export.destinations WHERE name = 'it_lake'`);
  psql(`DELETE FROM iceberg_export.iceberg_tables WHERE catalog_name = 'it_lake'`);
  psql(`DELETE FROM iceberg_export.entities WHERE source_schema = 'billing'`);
  psql('DROP SCHEMA IF EXISTS billing CASCADE');
  removeScratch();
});

/** sync runs iceberg_sync for the test destination and returns its row. */
function sync(extra = '') {
  return psqlJson(`SELECT row_to_json(s) FROM iceberg_export.iceberg_sync('it_lake'${extra}) s`);
}

/** metadataLocation is the catalog's current pointer of a table. */
function metadataLocation(table) {
  return psql(`SELECT metadata_location FROM iceberg_export.iceberg_tables
               WHERE catalog_name = 'it_lake' AND table_namespace = 'billing'
                 AND table_name = ${lit(table)}`);
}

/** columnsOf describes a source table's columns. */
function columnsOf(table) {
  return psqlJson(`SELECT json_agg(json_build_object('name', column_name, 'type', data_type,
                                                     'scale', numeric_scale) ORDER BY ordinal_position)
                   FROM information_schema.columns
                   WHERE table_schema = 'billing' AND table_name = ${lit(table)}`);
}

/** pgExpr renders a column as the canonical text both sides agree on. */
function pgExpr(c) {
  const q = `"${c.name}"`;
  switch (c.type) {
    case 'uuid': return `replace(${q}::text, '-', '')`;
    case 'timestamp with time zone':
      return `to_char(${q} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    default: return `${q}::text`;
  }
}

/** canon renders an icebird value as pgExpr renders its source. */
function canon(v, c) {
  if (v === null || v === undefined) return null;
  switch (c.type) {
    case 'uuid': return Buffer.from(v).toString('hex');
    case 'timestamp with time zone': return v.toISOString();
    case 'date': return v.toISOString().slice(0, 10);
    case 'numeric': return Number(v).toFixed(c.scale);
    default: return String(v);
  }
}

/** sourceRows returns a table's rows in canonical text, ordered by id. */
function sourceRows(table, columns) {
  const exprs = columns.map((c) => `${pgExpr(c)} AS "${c.name}"`).join(', ');
  return psqlJson(`SELECT coalesce(json_agg(r ORDER BY r.id), '[]') FROM (SELECT ${exprs}
                   FROM billing.${table}) r`);
}

/** assertTableMatches reads a table with icebird and compares it with the source. */
async function assertTableMatches(table, location = metadataLocation(table)) {
  const columns = columnsOf(table);
  const expected = sourceRows(table, columns);
  const rows = (await readIcebergTable(location))
    .map((r) => Object.fromEntries(columns.map((c) => [c.name, canon(r[c.name], c)])))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  assert.equal(rows.length, expected.length, `${table}: row count`);
  for (let i = 0; i < rows.length; i++)
    assert.deepEqual(rows[i], expected[i], `${table}: row ${i} differs`);
}

/** filesUnder lists the files below a warehouse-relative directory. */
function filesUnder(rel) {
  const dir = path.join(warehouse, rel);
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true })
    .filter((f) => fs.statSync(path.join(dir, f)).isFile()).sort();
}

test('a full sync exports every entity and icebird reads each table back value by value', async () => {
  const run = sync();
  assert.equal(run.status, 'succeeded');
  assert.equal(run.tables, TABLES.length);
  const history = psqlJson(`SELECT row_to_json(h) FROM iceberg_export.sync_history h
                            WHERE run_id = ${lit(run.run_id)}`);
  assert.equal(history.trigger, 'manual');
  assert.deepEqual(Object.keys(history.tables).sort(), TABLES);
  for (const t of TABLES) await assertTableMatches(t);
  assert.deepEqual(filesUnder('_write_ahead_staging'), [], 'staging is empty after a run');
  const hint = fs.readFileSync(path.join(warehouse, 'billing/customers/metadata/version-hint.text'), 'utf8');
  assert.ok(metadataLocation('customers').endsWith(`/${hint}.metadata.json`), 'version-hint names the current file');
});

test('successive syncs make a snapshot chain and replace the content', async () => {
  const beforeLocation = metadataLocation('customers');
  const before = readMetadata(beforeLocation);
  psql(`UPDATE billing.customers SET name = 'Renamed ' || customer_id WHERE customer_id IN ('cus_1', 'cus_2');
        DELETE FROM billing.subscription_addons WHERE subscription_id IN
          (SELECT id FROM billing.subscriptions WHERE customer_id = md5('customer3')::uuid);
        DELETE FROM billing.subscriptions WHERE customer_id = md5('customer3')::uuid;
        DELETE FROM billing.customers WHERE customer_id = 'cus_3'`);
  const run = sync();
  assert.equal(run.status, 'succeeded');
  const md = readMetadata(metadataLocation('customers'));
  const current = md.snapshots.find((s) => s['snapshot-id'] === md['current-snapshot-id']);
  assert.equal(md.snapshots.length, before.snapshots.length + 1);
  assert.equal(current['parent-snapshot-id'], before['current-snapshot-id']);
  assert.equal(current['sequence-number'], before['last-sequence-number'] + 1);
  assert.equal(current.summary.operation, 'overwrite');
  assert.equal(current.summary['iceberg-export.run-id'], run.run_id);
  assert.equal(current.summary['total-records'], String(299));
  assert.equal(md.refs.main['snapshot-id'], md['current-snapshot-id']);
  assert.equal(md['snapshot-log'].at(-1)['snapshot-id'], md['current-snapshot-id']);
  assert.equal(md['metadata-log'].at(-1)['metadata-file'], beforeLocation, 'the previous file is logged');
  for (const t of ['customers', 'subscriptions', 'subscription_addons']) await assertTableMatches(t);
});

test('the manifest and manifest list carry the Iceberg header keys and the data file (avsc)', async () => {
  const md = readMetadata(metadataLocation('customers'));
  const current = md.snapshots.find((s) => s['snapshot-id'] === md['current-snapshot-id']);
  const listFile = fileURLToPath(current['manifest-list']);
  const lists = await decodeAvro(listFile);
  assert.equal(lists.meta['format-version'], '2');
  assert.equal(lists.records.length, 1);
  const manifest = await decodeAvro(fileURLToPath(lists.records[0].manifest_path));
  assert.equal(manifest.meta['format-version'], '2');
  assert.equal(manifest.meta.content, 'data');
  assert.equal(manifest.meta['partition-spec'], '[]');
  assert.deepEqual(JSON.parse(manifest.meta.schema).fields.map((f) => f.id),
    md.schemas[0].fields.map((f) => f.id));
  assert.equal(manifest.records.length, 1);
  const entry = manifest.records[0];
  assert.equal(entry.status, 1);
  assert.equal(entry.data_file.record_count, 299n);
  assert.equal(String(entry.snapshot_id), current['manifest-list'].match(/snap-(\d+)-/)[1]);
  assert.ok(fs.existsSync(fileURLToPath(entry.data_file.file_path)));
});

/** decodeAvro reads an Avro container file with avsc: header metadata and records. */
function decodeAvro(file) {
  return new Promise((resolve, reject) => {
    const records = [];
    let meta = {};
    // snapshot ids use all 63 bits: read longs as BigInt, never as lossy numbers
    avro.createFileDecoder(file, { parseHook: (schema) => avro.Type.forSchema(schema, { registry: { long: BIG_LONG } }) })
      .on('metadata', (type, codec, header) => {
        meta = Object.fromEntries(Object.entries(header.meta).map(([k, v]) => [k, v.toString()]));
      })
      .on('data', (r) => records.push(r))
      .on('end', () => resolve({ meta, records }))
      .on('error', reject);
  });
}

const BIG_LONG = avro.types.LongType.__with({
  fromBuffer: (buf) => buf.readBigInt64LE(),
  toBuffer: (n) => { const b = Buffer.alloc(8); b.writeBigInt64LE(BigInt(n)); return b; },
  fromJSON: BigInt,
  toJSON: Number,
  isValid: (n) => typeof n === 'bigint',
  compare: (a, b) => (a === b ? 0 : a < b ? -1 : 1),
});

test('a failure between publish and commit leaves the table at its last snapshot; the next sync converges', async () => {
  const before = metadataLocation('customers');
  const beforeRows = (await readIcebergTable(before)).length;
  psql(`UPDATE billing.customers SET email = 'changed-' || email WHERE customer_id = 'cus_10'`);
  const out = psqlFails(`SET iceberg_export.fault_injection = 'after_publish';
                         SELECT * FROM iceberg_export.iceberg_sync('it_lake')`);
  assert.match(out, /fault injected at "after_publish"/);
  assert.equal(metadataLocation('customers'), before, 'the catalog still points at the last commit');
  assert.equal((await readIcebergTable(before)).length, beforeRows);
  const failed = psqlJson(`SELECT row_to_json(r) FROM iceberg_export.sync_runs r
                           ORDER BY started_at DESC LIMIT 1`);
  assert.equal(failed.status, 'failed');
  assert.match(failed.error, /fault injected/);
  // the published but never committed file is there until the next run
  assert.ok(filesUnder('billing/addons/data').some((f) => f.startsWith(failed.run_id)));

  const run = sync();
  assert.equal(run.status, 'succeeded');
  for (const t of TABLES) await assertTableMatches(t);
  for (const t of TABLES)
    assert.ok(!filesUnder(`billing/${t}/data`).some((f) => f.startsWith(failed.run_id)), `${t}: orphan removed`);
  assert.deepEqual(filesUnder('_write_ahead_staging'), []);
});

test('expiry with a zero-day retention keeps only the current snapshot and deletes exactly the unreferenced files', async () => {
  psql(`SELECT iceberg_export.alter_destination('it_lake', retention_window_days => 0)`);
  const run = sync();
  assert.equal(run.status, 'succeeded');
  for (const t of TABLES) {
    const md = readMetadata(metadataLocation(t));
    assert.equal(md.snapshots.length, 1, `${t}: one snapshot left`);
    const runId = md.snapshots[0].summary['iceberg-export.run-id'];
    assert.equal(runId, run.run_id);
    assert.deepEqual(filesUnder(`billing/${t}/data`), [`${runId}-00000.parquet`]);
    const avroFiles = filesUnder(`billing/${t}/metadata`).filter((f) => f.endsWith('.avro'));
    assert.deepEqual(avroFiles.sort(), [`${runId}-m0.avro`,
      path.basename(md.snapshots[0]['manifest-list'])].sort());
    await assertTableMatches(t);
  }
  psql(`SELECT iceberg_export.alter_destination('it_lake', retention_window_days => 7)`);
});

test('entity groups select what a destination exports', async () => {
  psql(`SELECT iceberg_export.alter_destination('it_lake', entity_groups => ARRAY['customers'])`);
  const run = sync();
  assert.equal(run.tables, 1);
  psql(`SELECT iceberg_export.alter_destination('it_lake', all_entity_groups => true)`);
});

test('a dropped source table fails the run with a clear error and keeps its history row', () => {
  psql(`CREATE TABLE billing.coupons (id uuid PRIMARY KEY, code text);
        SELECT iceberg_export.register_entity('billing.coupons', 'product_catalog');
        DROP TABLE billing.coupons`);
  const out = psqlFails(`SELECT * FROM iceberg_export.iceberg_sync('it_lake')`);
  assert.match(out, /source "billing.coupons" of exported table "coupons" does not exist/);
  const failed = psqlJson(`SELECT row_to_json(r) FROM iceberg_export.sync_runs r
                           ORDER BY started_at DESC LIMIT 1`);
  assert.equal(failed.status, 'failed');
  assert.match(failed.error, /does not exist/);
  psql(`SELECT iceberg_export.unregister_entity('coupons')`);
  assert.equal(sync().status, 'succeeded');
});

test('an admin role syncs as itself; other roles may not sync', () => {
  psql(`DROP ROLE IF EXISTS it_admin; DROP ROLE IF EXISTS it_nobody;
        CREATE ROLE it_admin LOGIN IN ROLE iceberg_export_admin;
        CREATE ROLE it_nobody LOGIN;
        GRANT USAGE ON SCHEMA billing TO it_admin;
        GRANT SELECT ON ALL TABLES IN SCHEMA billing TO it_admin`);
  try {
    const run = psqlJson(`SET ROLE it_admin;
      SELECT row_to_json(s) FROM iceberg_export.iceberg_sync('it_lake') s`);
    assert.equal(run.status, 'succeeded');
    assert.equal(psql(`SELECT run_by FROM iceberg_export.sync_runs WHERE run_id = ${lit(run.run_id)}`), 'it_admin');
    assert.match(psqlFails(`SET ROLE it_nobody; SELECT * FROM iceberg_export.iceberg_sync('it_lake')`),
      /permission denied/);
    // without SELECT on a source, the run fails as the caller would
    psql('REVOKE SELECT ON billing.prices FROM it_admin');
    assert.match(psqlFails(`SET ROLE it_admin; SELECT * FROM iceberg_export.iceberg_sync('it_lake')`),
      /permission denied for table prices/);
  } finally {
    psql(`DROP OWNED BY it_admin; DROP OWNED BY it_nobody; DROP ROLE it_admin; DROP ROLE it_nobody`);
  }
});

test('two syncs of one destination started together run one after the other', async () => {
  const { spawn } = await import('node:child_process');
  const one = () => new Promise((resolve) => {
    const child = spawn('psql', ['-X', '-At', '-c', `SELECT status FROM iceberg_export.iceberg_sync('it_lake')`]);
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.on('close', () => resolve(out.trim()));
  });
  const results = await Promise.all([one(), one()]);
  assert.deepEqual(results, ['succeeded', 'succeeded']);
  const runs = psqlJson(`SELECT json_agg(r ORDER BY started_at) FROM (SELECT run_id, started_at, finished_at
                         FROM iceberg_export.sync_runs ORDER BY started_at DESC LIMIT 2) r`);
  const md = readMetadata(metadataLocation('customers'));
  const ids = md.snapshots.map((s) => s.summary['iceberg-export.run-id']);
  for (const r of runs) assert.equal(ids.filter((x) => x === r.run_id).length, 1, 'each run committed once');
  await assertTableMatches('customers');
});

test('cancel_sync stops a running sync; the run is recorded as cancelled and announced for alerting', async () => {
  const { spawn } = await import('node:child_process');
  psql(`CREATE VIEW billing.slow AS
          SELECT g AS id, length(pg_sleep(0.001)::text) AS z FROM generate_series(1, 10000) g;
        SELECT iceberg_export.create_entity_group('slow');
        SELECT iceberg_export.register_entity('billing.slow', 'slow', primary_key => ARRAY['id']::name[]);
        SELECT iceberg_export.alter_destination('it_lake', entity_groups => ARRAY['slow'])`);
  const listener = spawn('psql', ['-X', '-At'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let heard = '';
  listener.stdout.on('data', (d) => { heard += d; });
  listener.stdin.write('LISTEN iceberg_export_sync_failed;\n');
  try {
    const syncing = new Promise((resolve) => {
      const child = spawn('psql', ['-X', '-At', '-c', `SELECT * FROM iceberg_export.iceberg_sync('it_lake')`]);
      let err = '';
      child.stderr.on('data', (d) => { err += d; });
      child.on('close', (code) => resolve({ code, err }));
    });
    let run = null;
    for (let i = 0; i < 100 && !run; i++) {
      await new Promise((r) => setTimeout(r, 100));
      run = psqlJson(`SELECT row_to_json(r) FROM iceberg_export.sync_runs r
                      WHERE status = 'running' AND pid IS NOT NULL AND destination = 'it_lake'`);
    }
    assert.ok(run, 'the sync is running');
    // sync_progress (shared memory) follows the rows as they flow
    const progress = () => psqlJson(`SELECT row_to_json(p) FROM iceberg_export.sync_progress p
                                     WHERE run_id = ${lit(run.run_id)} AND target_table = 'slow'`);
    const first = await (async () => {
      for (let i = 0; i < 100; i++) {
        const p = progress();
        if (p && Number(p.rows) > 0) return p;
        await new Promise((r) => setTimeout(r, 100));
      }
      return null;
    })();
    assert.ok(first, 'sync_progress shows rows of the table being read');
    assert.equal(first.phase, 'reading');
    assert.equal(first.destination, 'it_lake');
    assert.equal(first.pid, run.pid);
    await new Promise((r) => setTimeout(r, 1200));
    assert.ok(Number(progress().rows) > Number(first.rows), 'the row count grows at least once a second');
    assert.equal(psql(`SELECT iceberg_export.cancel_sync(${lit(run.run_id)})`), 't');
    const { code, err } = await syncing;
    assert.notEqual(code, 0, 'iceberg_sync reports the cancelled run as an error');
    assert.match(err, /canceling statement due to user request/);
    const done = psqlJson(`SELECT row_to_json(r) FROM iceberg_export.sync_runs r WHERE run_id = ${lit(run.run_id)}`);
    assert.equal(done.status, 'cancelled');
    assert.equal(done.pid, null);
    assert.equal(progress(), null, 'a finished run leaves sync_progress');
    assert.equal(psql(`SELECT count(*) FROM iceberg_export.iceberg_tables WHERE table_name = 'slow'`), '0',
      'nothing was committed');
    assert.match(psqlFails(`SELECT iceberg_export.cancel_sync(${lit(run.run_id)})`), /is not running/);
    listener.stdin.write('SELECT 1;\n');
    listener.stdin.end();
    await new Promise((r) => listener.on('close', r));
    assert.match(heard, /Asynchronous notification "iceberg_export_sync_failed" with payload "(.*)" received/);
    const payload = JSON.parse(heard.match(/with payload "(.*)" received/)[1]);
    assert.equal(payload.run_id, run.run_id);
    assert.equal(payload.destination, 'it_lake');
    assert.equal(payload.status, 'cancelled');
  } finally {
    listener.kill();
    psql(`SELECT iceberg_export.unregister_entity('slow');
          DELETE FROM iceberg_export.entity_groups WHERE name = 'slow';
          DROP VIEW billing.slow;
          SELECT iceberg_export.alter_destination('it_lake', all_entity_groups => true)`);
  }
});

test('errors: unknown and disabled destinations', () => {
  assert.match(psqlFails(`SELECT * FROM iceberg_export.iceberg_sync('nowhere')`),
    /destination "nowhere" does not exist/);
  psql(`SELECT iceberg_export.alter_destination('it_lake', enabled => false)`);
  assert.match(psqlFails(`SELECT * FROM iceberg_export.iceberg_sync('it_lake')`), /is disabled/);
  psql(`SELECT iceberg_export.alter_destination('it_lake', enabled => true)`);
});
