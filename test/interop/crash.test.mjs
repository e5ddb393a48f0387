// crash.test.mjs: kill -9 of the sync worker while reading, after publish
// and before the catalog swap, and of the postmaster mid-sync.  After each
// kill and restart the tables read (with icebird) at their last committed
// snapshot, the history shows the run failed, and the next run converges
// with no duplicate and no missing row and no staged or orphaned file left.

import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshDir, removeScratch } from './lib/export.mjs';
import { readIcebergTable } from './lib/iceberg.mjs';
import { waitFor } from './lib/wait.mjs';
import { lit, psql, runPsql } from './lib/pg.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TABLES = ['addons', 'customers', 'features', 'plans', 'prices', 'products',
  'subscription_addons', 'subscriptions'];
let warehouse;

/** pointers maps each table to the catalog's current metadata location. */
function pointers() {
  const out = psql(`SELECT table_name || '=' || metadata_location FROM iceberg_export.iceberg_tables
                    WHERE catalog_name = 'crash_lake' ORDER BY table_name`);
  return Object.fromEntries(out.split('\n').filter(Boolean).map((l) => l.split('=')));
}

/** startSync runs iceberg_sync in its own psql with a fault setting. */
function startSync(fault = '') {
  return new Promise((resolve) => {
    const sql = `SET iceberg_export.fault_injection = ${lit(fault)};
                 SELECT status FROM iceberg_export.iceberg_sync('crash_lake');`;
    const child = spawn('psql', ['-X', '-At', '-c', sql]);
    child.on('close', (code) => resolve(code));
  });
}

/** workerAt waits for the sync worker to show activity matching re, and returns its pid. */
function workerAt(re) {
  return waitFor(`a sync worker at ${re}`, () => {
    const row = psql(`SELECT pid || ' ' || coalesce(query, '') FROM pg_stat_activity
                      WHERE backend_type = 'iceberg_export sync'`);
    return row && re.test(row) ? Number(row.split(' ')[0]) : null;
  });
}

/** serverUp waits until the server answers again after a crash. */
function serverUp() {
  return waitFor('the server to accept connections', () => runPsql('SELECT 1').status === 0, 60);
}

/** lastRun is the newest run of the destination. */
function lastRun() {
  return JSON.parse(psql(`SELECT row_to_json(r) FROM iceberg_export.sync_runs r
                          WHERE destination = 'crash_lake' ORDER BY started_at DESC LIMIT 1`));
}

/** filesWith lists the warehouse files whose name carries a run id. */
function filesWith(runId) {
  return fs.readdirSync(warehouse, { recursive: true }).filter((f) => f.includes(runId));
}

/** assertConverged checks that every table reads (icebird) with exactly the source's rows. */
async function assertConverged() {
  for (const t of TABLES) {
    const rows = await readIcebergTable(pointers()[t]);
    assert.equal(rows.length, Number(psql(`SELECT count(*) FROM billing.${t}`)), `${t}: row count`);
    const ids = new Set(rows.map((r) => Buffer.from(r.id).toString('hex')));
    assert.equal(ids.size, rows.length, `${t}: no duplicate rows`);
    const missing = psql(`SELECT count(*) FROM billing.${t} WHERE NOT (replace(id::text, '-', '') = ANY (${lit(`{${[...ids].join(',')}}`)}::text[]))`);
    assert.equal(missing, '0', `${t}: no missing rows`);
  }
  assert.deepEqual(fs.readdirSync(warehouse, { recursive: true })
    .filter((f) => f.startsWith('_write_ahead_staging') && f.endsWith('.parquet')), [], 'staging is empty');
}

/** afterCrash runs the checks common to every kill: at the last snapshot, failed, converges. */
async function afterCrash(before, run) {
  await serverUp();
  assert.deepEqual(pointers(), before, 'every table is at its last committed snapshot');
  for (const t of TABLES) await readIcebergTable(before[t]);
  const failed = await waitFor('the killed run to be marked failed', () => {
    const r = JSON.parse(psql(`SELECT row_to_json(r) FROM iceberg_export.sync_runs r
                               WHERE run_id = ${lit(run.run_id)}`));
    return r.status === 'failed' ? r : null;
  });
  assert.match(failed.error, /restarted|died/);
  // psql changed the data between the crash and the next run: that must show
  psql(`UPDATE billing.customers SET name = 'after crash' WHERE customer_id = 'cus_7'`);
  assert.equal(await startSync(), 0, 'the next run succeeds');
  await assertConverged();
  assert.deepEqual(filesWith(run.run_id), [], 'no file of the killed run is left');
  const rows = await readIcebergTable(pointers().customers);
  assert.ok(rows.some((r) => r.customer_id === 'cus_7' && r.name === 'after crash'));
}

before(async () => {
  psql('CREATE EXTENSION IF NOT EXISTS iceberg_export');
  psql('DROP SCHEMA IF EXISTS billing CASCADE');
  psql(`DELETE FROM iceberg_export.entities WHERE source_schema = 'billing'`);
  psql(`DELETE FROM iceberg_export.destinations WHERE name = 'crash_lake'`);
  psql(`DELETE FROM iceberg_export.iceberg_tables WHERE catalog_name = 'crash_lake'`);
  // a crash loses asynchronous commits: make this test's commits durable
  psql(`ALTER SYSTEM SET synchronous_commit = on; SELECT pg_reload_conf()`);
  psql(fs.readFileSync(path.join(ROOT, 'sample/billing_schema.sql'), 'utf8'));
  psql(`\\set customers 200\n${fs.readFileSync(path.join(ROOT, 'sample/generate.sql'), 'utf8')}`);
  warehouse = freshDir('crash_warehouse');
  psql(`SELECT iceberg_export.create_destination('crash_lake',
          options => jsonb_build_object('warehouse', ${lit(warehouse)}))`);
  assert.equal(await startSync(), 0, 'the first sync succeeds');
});

after(() => {
  psql(`DELETE FROM iceberg_export.destinations WHERE name = 'crash_lake'`);
  psql(`DELETE FROM iceberg_export.iceberg_tables WHERE catalog_name = 'crash_lake'`);
  psql(`DELETE FROM iceberg_export.entities WHERE source_schema = 'billing'`);
  psql(`DELETE FROM iceberg_export.entity_groups WHERE name = 'slowcrash'`);
  psql('DROP SCHEMA IF EXISTS billing CASCADE');
  psql(`ALTER SYSTEM RESET synchronous_commit; SELECT pg_reload_conf()`);
  removeScratch();
});

test('kill -9 of the sync worker while it reads', async () => {
  const before = pointers();
  psql(`CREATE VIEW billing.slow AS
          SELECT g AS id, length(pg_sleep(0.01)::text) AS z FROM generate_series(1, 3000) g;
        SELECT iceberg_export.create_entity_group('slowcrash');
        SELECT iceberg_export.register_entity('billing.slow', 'slowcrash', 'zz_slow',
                                              primary_key => ARRAY['id']::name[])`);
  const syncing = startSync();
  const pid = await workerAt(/iceberg_export: reading/);
  await waitFor('staged files', () => fs.readdirSync(warehouse, { recursive: true })
    .some((f) => f.startsWith('_write_ahead_staging') && f.endsWith('.parquet')));
  const run = lastRun();
  process.kill(pid, 'SIGKILL');
  await syncing;
  await serverUp();
  psql(`SELECT iceberg_export.unregister_entity('zz_slow'); DROP VIEW billing.slow`);
  await afterCrash(before, run);
});

test('kill -9 of the sync worker after publishing, before the commit', async () => {
  const before = pointers();
  const syncing = startSync('sleep_after_publish');
  const pid = await workerAt(/sleeping at after_publish/);
  const run = lastRun();
  assert.ok(filesWith(run.run_id).some((f) => f.includes('/data/')), 'a data file was published');
  process.kill(pid, 'SIGKILL');
  await syncing;
  await afterCrash(before, run);
});

test('kill -9 of the sync worker with the new metadata written, before the catalog swap', async () => {
  const before = pointers();
  const syncing = startSync('sleep_before_commit');
  const pid = await workerAt(/sleeping at before_commit/);
  const run = lastRun();
  process.kill(pid, 'SIGKILL');
  await syncing;
  await afterCrash(before, run);
});

test('kill -9 of the postmaster mid-sync, then a restart', async () => {
  const before = pointers();
  const syncing = startSync('sleep_after_publish');
  await workerAt(/sleeping at after_publish/);
  const run = lastRun();
  const dataDir = path.join(process.env.IE_CLUSTER_DIR, 'data');
  const postmaster = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  process.kill(postmaster, 'SIGKILL');
  await syncing;
  // the orphaned backends notice and exit; until they have, a start fails
  const pgCtl = spawnSync('bash', ['-c', 'command -v pg_ctl'], { encoding: 'utf8' }).stdout.trim();
  await waitFor('the server to start again', () => spawnSync('runuser', ['-u', 'postgres', '--', pgCtl,
    '-D', dataDir, '-l', path.join(process.env.IE_CLUSTER_DIR, 'postgres.log'), '-w', '-t', '20', 'start'],
  { encoding: 'utf8' }).status === 0, 60);
  await afterCrash(before, run);
});
