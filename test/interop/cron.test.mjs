// cron.test.mjs: iceberg_export.schedule() / unschedule() with pg_cron
// (postgresql-15-cron; scripts/cluster.sh preloads it for the postgres
// database): a scheduled sync succeeds and a failing one shows both in
// cron.job_run_details and in our history, with the trigger recorded as
// cron; errors, and a database without pg_cron.
//
// pg_cron before 1.5 (Debian 12 ships 1.4.2) has no seconds schedules: jobs
// run at minute boundaries.  So that one wait covers both outcomes, a good
// destination (cron_lake) and a broken one (cron_broken: its only entity's
// source is dropped) are scheduled together and run in the same tick.

import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshDir, removeScratch } from './lib/export.mjs';
import { lit, psql, psqlFails, psqlJson } from './lib/pg.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const GOOD = 'cron_lake';
const BAD = 'cron_broken';
const NOCRON_DB = 'ie_nocron';
let cronVersion;

function cleanup() {
  for (const d of [GOOD, BAD]) {
    psql(`DO $$ BEGIN
            IF EXISTS (SELECT FROM pg_extension WHERE extname = 'pg_cron') THEN
              PERFORM iceberg_export.unschedule(${lit(d)});
            END IF;
          EXCEPTION WHEN undefined_object THEN NULL;
          END $$`);
    psql(`DELETE FROM iceberg_export.destinations WHERE name = ${lit(d)}`);
    psql(`DELETE FROM iceberg_export.iceberg_tables WHERE catalog_name = ${lit(d)}`);
  }
  psql(`DELETE FROM iceberg_export.entities WHERE source_schema = 'billing'`);
  psql(`DELETE FROM iceberg_export.entity_groups WHERE name = 'cron_broken'`);
  psql('DROP SCHEMA IF EXISTS billing CASCADE');
}

before(() => {
  psql('CREATE EXTENSION IF NOT EXISTS iceberg_export');
  psql('CREATE EXTENSION IF NOT EXISTS pg_cron');
  cleanup();
  cronVersion = psql(`SELECT extversion FROM pg_extension WHERE extname = 'pg_cron'`);
  psql(fs.readFileSync(path.join(ROOT, 'sample/billing_schema.sql'), 'utf8'));
  psql(`\\set customers 50\n${fs.readFileSync(path.join(ROOT, 'sample/generate.sql'), 'utf8')}`);
  psql(`SELECT iceberg_export.create_destination(${lit(GOOD)},
          options => jsonb_build_object('warehouse', ${lit(freshDir('cron_warehouse'))}),
          entity_groups => ARRAY['product_catalog', 'customers', 'subscriptions'])`);
  psql(`SELECT iceberg_export.create_entity_group('cron_broken');
        CREATE TABLE billing.cron_gone (id int PRIMARY KEY);
        SELECT iceberg_export.register_entity('billing.cron_gone', 'cron_broken');
        DROP TABLE billing.cron_gone;
        SELECT iceberg_export.create_destination(${lit(BAD)},
          options => jsonb_build_object('warehouse', ${lit(freshDir('cron_broken_warehouse'))}),
          entity_groups => ARRAY['cron_broken'])`);
});

after(() => {
  cleanup();
  psql(`DROP DATABASE IF EXISTS ${NOCRON_DB}`);
  removeScratch();
});

/** everyTick is the shortest schedule the installed pg_cron accepts. */
function everyTick() {
  const [major, minor] = cronVersion.split(/[.-]/).map(Number);
  return major > 1 || (major === 1 && minor >= 5) ? '2 seconds' : '* * * * *';
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** waitFor polls fn until it returns a truthy value or limitMs passes. */
async function waitFor(fn, limitMs, what) {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > deadline) assert.fail(`timed out after ${limitMs / 1000}s waiting for ${what}`);
    await sleep(500);
  }
}

/** cronRun is the first finished cron.job_run_details row of a job since t0. */
function cronRun(jobid, t0) {
  return psqlJson(`SELECT row_to_json(d) FROM cron.job_run_details d
                   WHERE jobid = ${jobid} AND start_time >= ${lit(t0)}
                     AND status IN ('succeeded', 'failed')
                   ORDER BY start_time LIMIT 1`);
}

/** ourRun is the first finished sync_runs row of a destination since t0. */
function ourRun(destination, t0) {
  return psqlJson(`SELECT row_to_json(r) FROM iceberg_export.sync_runs r
                   WHERE destination = ${lit(destination)} AND started_at >= ${lit(t0)}
                     AND status <> 'running'
                   ORDER BY started_at LIMIT 1`);
}

test('a scheduled sync runs as a pg_cron job; success and failure show in cron.job_run_details and in sync_runs', async () => {
  const t0 = psql('SELECT now()');
  try {
    const good = Number(psql(`SELECT iceberg_export.schedule(${lit(GOOD)}, ${lit(everyTick())})`));
    const bad = Number(psql(`SELECT iceberg_export.schedule(${lit(BAD)}, ${lit(everyTick())})`));
    const job = psqlJson(`SELECT row_to_json(j) FROM cron.job j WHERE jobid = ${good}`);
    assert.equal(job.jobname, `iceberg_export:${GOOD}`);
    assert.equal(job.command, `SELECT * FROM iceberg_export.iceberg_sync('${GOOD}')`);
    assert.equal(job.schedule, everyTick());
    assert.equal(job.username, 'postgres', 'the job runs as the role that scheduled it');

    // a minute tick, plus the time the syncs take
    const limit = everyTick() === '* * * * *' ? 90_000 : 30_000;
    const okCron = await waitFor(() => cronRun(good, t0), limit, 'a finished run of the cron_lake job');
    assert.equal(okCron.status, 'succeeded', `cron.job_run_details: ${okCron.return_message}`);
    const okRun = await waitFor(() => ourRun(GOOD, t0), 10_000, 'the cron_lake run in sync_runs');
    assert.equal(okRun.trigger, 'cron');
    assert.equal(okRun.status, 'succeeded');
    assert.equal(okRun.run_by, 'postgres');
    assert.ok(Number(psql(`SELECT rows FROM iceberg_export.sync_history WHERE run_id = ${lit(okRun.run_id)}`)) > 0);

    const badCron = await waitFor(() => cronRun(bad, t0), limit, 'a finished run of the cron_broken job');
    assert.equal(badCron.status, 'failed');
    assert.match(badCron.return_message, /sync of destination "cron_broken" failed/);
    assert.match(badCron.return_message, /source "billing.cron_gone" of exported table "cron_gone" does not exist/);
    const badRun = await waitFor(() => ourRun(BAD, t0), 10_000, 'the cron_broken run in sync_runs');
    assert.equal(badRun.trigger, 'cron');
    assert.equal(badRun.status, 'failed');
    assert.match(badRun.error, /source "billing.cron_gone" of exported table "cron_gone" does not exist/);
  } finally {
    psql(`SELECT iceberg_export.unschedule(${lit(GOOD)}), iceberg_export.unschedule(${lit(BAD)})`);
  }
});

test('scheduling again replaces the schedule; unschedule removes the job', () => {
  try {
    const first = psql(`SELECT iceberg_export.schedule(${lit(GOOD)}, '0 3 * * *')`);
    const second = psql(`SELECT iceberg_export.schedule(${lit(GOOD)}, '30 4 * * 6')`);
    assert.equal(second, first, 'the same job');
    assert.deepEqual(psqlJson(`SELECT json_agg(schedule) FROM cron.job WHERE jobname = 'iceberg_export:${GOOD}'`),
      ['30 4 * * 6']);
    assert.equal(psql(`SELECT iceberg_export.unschedule(${lit(GOOD)})`), 't');
    assert.equal(psql(`SELECT count(*) FROM cron.job WHERE jobname = 'iceberg_export:${GOOD}'`), '0');
    assert.equal(psql(`SELECT iceberg_export.unschedule(${lit(GOOD)})`), 'f', 'nothing left to unschedule');
  } finally {
    psql(`SELECT iceberg_export.unschedule(${lit(GOOD)})`);
  }
});

test('errors: unknown destination, bad cron expression, a role without iceberg_export_admin', () => {
  const unknown = psqlFails(`\\set VERBOSITY verbose
    SELECT iceberg_export.schedule('nowhere', '* * * * *')`);
  assert.match(unknown, /ERROR: {2}42704: destination "nowhere" does not exist/);
  assert.match(unknown, /HINT: .*create_destination/);
  assert.match(psqlFails(`\\set VERBOSITY verbose
    SELECT iceberg_export.unschedule('nowhere')`), /42704: destination "nowhere" does not exist/);
  assert.match(psqlFails(`SELECT iceberg_export.schedule(${lit(GOOD)}, 'every now and then')`),
    /invalid schedule/);
  assert.equal(psql(`SELECT count(*) FROM cron.job WHERE jobname LIKE 'iceberg_export:%'`), '0');
  psql(`DROP ROLE IF EXISTS it_cron_nobody; CREATE ROLE it_cron_nobody;
        GRANT USAGE ON SCHEMA iceberg_export TO it_cron_nobody`);
  try {
    for (const call of [`schedule(${lit(GOOD)}, '* * * * *')`, `unschedule(${lit(GOOD)})`])
      assert.match(psqlFails(`SET ROLE it_cron_nobody; SELECT iceberg_export.${call}`),
        /permission denied for function (schedule|unschedule)/);
  } finally {
    psql('DROP OWNED BY it_cron_nobody; DROP ROLE it_cron_nobody');
  }
});

test('without pg_cron in the database, schedule and unschedule raise feature_not_supported with a hint', () => {
  psql(`DROP DATABASE IF EXISTS ${NOCRON_DB}`);
  psql(`CREATE DATABASE ${NOCRON_DB}`);
  psql(`\\c ${NOCRON_DB}\nCREATE EXTENSION iceberg_export`);
  for (const call of [`schedule(${lit(GOOD)}, '* * * * *')`, `unschedule(${lit(GOOD)})`]) {
    const out = psqlFails(`\\c ${NOCRON_DB}\n\\set VERBOSITY verbose\nSELECT iceberg_export.${call}`);
    assert.match(out, /ERROR: {2}0A000: pg_cron is not installed in database "ie_nocron"/);
    assert.match(out, /HINT: {2}Install pg_cron \(shared_preload_libraries = 'pg_cron', then CREATE EXTENSION pg_cron\)/);
  }
});
