// launcher.test.mjs: the launcher background worker (the test cluster
// preloads iceberg_export) runs destinations on their sync_interval, keeps
// a failing destination from affecting others, picks up configuration
// changes, and marks runs left running by a dead worker as failed.

import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshDir, removeScratch } from './lib/export.mjs';
import { sleep, waitFor } from './lib/wait.mjs';
import { lit, psql, psqlJson } from './lib/pg.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// runs of earlier test runs in the same database do not count
let since;

/** runs counts a destination's scheduled runs of this test run by status. */
function runs(destination, status = 'succeeded') {
  return Number(psql(`SELECT count(*) FROM iceberg_export.sync_runs
                      WHERE destination = ${lit(destination)} AND trigger = 'schedule'
                        AND status = ${lit(status)} AND started_at >= ${lit(since)}`));
}

before(() => {
  psql('CREATE EXTENSION IF NOT EXISTS iceberg_export');
  since = psql('SELECT clock_timestamp()');
  psql('DROP SCHEMA IF EXISTS billing CASCADE');
  psql(`DELETE FROM iceberg_export.entities WHERE source_schema = 'billing'`);
  psql(`DELETE FROM iceberg_export.destinations WHERE name IN ('sched_ok', 'sched_bad')`);
  psql(`DELETE FROM iceberg_export.iceberg_tables WHERE catalog_name IN ('sched_ok', 'sched_bad')`);
  psql(fs.readFileSync(path.join(ROOT, 'sample/billing_schema.sql'), 'utf8'));
  psql(`\\set customers 100\n${fs.readFileSync(path.join(ROOT, 'sample/generate.sql'), 'utf8')}`);
  // a group whose only table is gone: every run of sched_bad fails
  psql(`CREATE TABLE billing.gone (id int PRIMARY KEY);
        SELECT iceberg_export.create_entity_group('broken');
        SELECT iceberg_export.register_entity('billing.gone', 'broken');
        DROP TABLE billing.gone`);
});

after(() => {
  psql(`DELETE FROM iceberg_export.destinations WHERE name IN ('sched_ok', 'sched_bad')`);
  psql(`DELETE FROM iceberg_export.iceberg_tables WHERE catalog_name IN ('sched_ok', 'sched_bad')`);
  psql(`DELETE FROM iceberg_export.entities WHERE source_schema = 'billing'`);
  psql(`DELETE FROM iceberg_export.entity_groups WHERE name = 'broken'`);
  psql('DROP SCHEMA IF EXISTS billing CASCADE');
  removeScratch();
});

test('the launcher is running', () => {
  assert.equal(psql(`SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'iceberg_export launcher'`), '1');
});

test('destinations run on their interval; a failing one does not stop the others; unscheduling stops it', async () => {
  const warehouse = freshDir('sched_warehouse');
  psql(`SELECT iceberg_export.create_destination('sched_ok',
          options => jsonb_build_object('warehouse', ${lit(warehouse)}),
          entity_groups => ARRAY['customers'], sync_interval => '1 second');
        SELECT iceberg_export.create_destination('sched_bad',
          options => jsonb_build_object('warehouse', ${lit(warehouse)}, 'namespace', 'bad'),
          entity_groups => ARRAY['broken'], sync_interval => '1 second')`);
  await waitFor('three scheduled runs of sched_ok', () => runs('sched_ok') >= 3);
  await waitFor('two failed runs of sched_bad', () => runs('sched_bad', 'failed') >= 2);
  const last = psqlJson(`SELECT row_to_json(r) FROM iceberg_export.sync_runs r
                         WHERE destination = 'sched_bad' ORDER BY started_at DESC LIMIT 1`);
  assert.match(last.error, /billing.gone/);
  // never two runs of one destination at once
  const overlaps = psql(`SELECT count(*) FROM iceberg_export.sync_runs a JOIN iceberg_export.sync_runs b
                         ON a.destination = b.destination AND a.run_id < b.run_id
                         WHERE a.destination = 'sched_ok' AND a.started_at >= ${lit(since)}
                           AND b.started_at >= ${lit(since)}
                           AND tstzrange(a.started_at, a.finished_at) && tstzrange(b.started_at, b.finished_at)`);
  assert.equal(overlaps, '0');
  // configuration changes need no restart
  psql(`SELECT iceberg_export.alter_destination('sched_ok', unschedule => true);
        SELECT iceberg_export.alter_destination('sched_bad', enabled => false)`);
  await sleep(1500);
  const before = runs('sched_ok') + runs('sched_bad', 'failed');
  await sleep(3000);
  assert.equal(runs('sched_ok') + runs('sched_bad', 'failed'), before, 'no runs once unscheduled');
});

test('a SIGHUP reload changes how many scheduled syncs run at once', async () => {
  const warehouse = freshDir('reload_warehouse');
  psql(`CREATE VIEW billing.slow_a AS SELECT g AS id, length(pg_sleep(0.01)::text) AS z FROM generate_series(1, 120) g;
        CREATE VIEW billing.slow_b AS SELECT g AS id, length(pg_sleep(0.01)::text) AS z FROM generate_series(1, 120) g;
        SELECT iceberg_export.create_entity_group('slow_a');
        SELECT iceberg_export.create_entity_group('slow_b');
        SELECT iceberg_export.register_entity('billing.slow_a', 'slow_a', primary_key => ARRAY['id']::name[]);
        SELECT iceberg_export.register_entity('billing.slow_b', 'slow_b', primary_key => ARRAY['id']::name[]);
        ALTER SYSTEM SET iceberg_export.max_concurrent_syncs = 1;
        SELECT pg_reload_conf()`);
  const overlapping = () => Number(psql(`SELECT count(*) FROM iceberg_export.sync_runs a
      JOIN iceberg_export.sync_runs b ON a.destination = 'reload_a' AND b.destination = 'reload_b'
      WHERE a.started_at >= ${lit(since)} AND b.started_at >= ${lit(since)}
        AND tstzrange(a.started_at, greatest(a.started_at, coalesce(a.finished_at, clock_timestamp())))
         && tstzrange(b.started_at, greatest(b.started_at, coalesce(b.finished_at, clock_timestamp())))`));
  try {
    await sleep(500);
    psql(`SELECT iceberg_export.create_destination('reload_a', options => jsonb_build_object('warehouse', ${lit(warehouse)}, 'namespace', 'a'),
            entity_groups => ARRAY['slow_a'], sync_interval => '1 second');
          SELECT iceberg_export.create_destination('reload_b', options => jsonb_build_object('warehouse', ${lit(warehouse)}, 'namespace', 'b'),
            entity_groups => ARRAY['slow_b'], sync_interval => '1 second')`);
    await waitFor('runs of both destinations', () => runs('reload_a') >= 2 && runs('reload_b') >= 2);
    assert.equal(overlapping(), 0, 'with max_concurrent_syncs = 1 runs never overlap');
    psql(`ALTER SYSTEM SET iceberg_export.max_concurrent_syncs = 2; SELECT pg_reload_conf()`);
    await waitFor('overlapping runs once the reload allows two', () => overlapping() > 0);
  } finally {
    psql(`ALTER SYSTEM RESET iceberg_export.max_concurrent_syncs; SELECT pg_reload_conf();
          DELETE FROM iceberg_export.destinations WHERE name IN ('reload_a', 'reload_b');
          DELETE FROM iceberg_export.iceberg_tables WHERE catalog_name IN ('reload_a', 'reload_b');
          DELETE FROM iceberg_export.entities WHERE target_table IN ('slow_a', 'slow_b');
          DELETE FROM iceberg_export.entity_groups WHERE name IN ('slow_a', 'slow_b')`);
  }
});

test('a restarted launcher marks runs left running by a dead worker as failed', async () => {
  const runId = psql(`SELECT gen_random_uuid()`);
  psql(`INSERT INTO iceberg_export.sync_runs (run_id, destination, trigger, status, pid)
        VALUES (${lit(runId)}, 'sched_ok', 'schedule', 'running', 2147483000)`);
  psql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE backend_type = 'iceberg_export launcher'`);
  const status = await waitFor('the launcher to restart and mark the run', () => {
    const s = psql(`SELECT status FROM iceberg_export.sync_runs WHERE run_id = ${lit(runId)}`);
    return s === 'failed' ? s : null;
  });
  assert.equal(status, 'failed');
  assert.match(psql(`SELECT error FROM iceberg_export.sync_runs WHERE run_id = ${lit(runId)}`), /restarted/);
});
