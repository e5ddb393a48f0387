/*-------------------------------------------------------------------------
 *
 * sync_run.c
 *	  One sync run of one destination, in a background worker.
 *
 * The steps (DESIGN.md §4):
 *   1. The run's history row is committed before any work.
 *   2. One REPEATABLE READ transaction reads every selected entity and
 *      writes each table's rows to a Parquet file under
 *      <warehouse>/_write_ahead_staging/<table>/<run_id>/.
 *   3. Table by table (sync_table.c): publish the file into data/, write
 *      the manifest, the manifest list and new metadata, swap the catalog
 *      pointer, then delete what no snapshot references any more.
 *   4. The history row is finished in its own transaction, so a failed
 *      run keeps its row and its error.
 *
 * A session-level advisory lock keeps two runs of one destination apart.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/lmgr.h"
#include "sync/sync_run.h"
#include "common/hashfn.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/uuid.h"

/* The NOTIFY channel of runs that failed or were cancelled. */
#define SYNC_FAILED_CHANNEL "iceberg_export_sync_failed"

/* Advisory lock key space of destination locks (first key). */
#define SYNC_LOCK_CLASS 0x1ceb

/* SyncRunSpi runs a statement with text parameters; checks the result code. */
static void
SyncRunSpi(const char *sql, int nargs, const char *const *args, int expected)
{
	Oid			types[8];
	Datum		values[8];
	char		nulls[8];
	int			ret;

	Assert(nargs <= 8);
	for (int i = 0; i < nargs; i++)
	{
		types[i] = TEXTOID;
		values[i] = args[i] ? CStringGetTextDatum(args[i]) : (Datum) 0;
		nulls[i] = args[i] ? ' ' : 'n';
	}
	ret = SPI_execute_with_args(sql, nargs, types, values, nulls, false, 0);
	if (ret != expected)
		elog(ERROR, "iceberg_export bookkeeping failed: %s: %s",
			 SPI_result_code_string(ret), sql);
}

/* The extension's owner, as whom history and catalog rows are written. */
static Oid	sync_owner = InvalidOid;
static Oid	sync_saved_user = InvalidOid;
static int	sync_saved_sec = 0;

/*
 * SyncRunBegin starts a bookkeeping transaction (history, catalog) with a
 * snapshot and SPI, running as the extension's owner: the calling role
 * may read history but not write it.
 */
void
SyncRunBegin(void)
{
	/* a worker sets the statement time itself: now() would stand still */
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (!OidIsValid(sync_owner))
	{
		int			ret = SPI_execute("SELECT extowner FROM pg_extension "
									  "WHERE extname = 'iceberg_export'", true, 1);
		bool		isnull;

		if (ret != SPI_OK_SELECT || SPI_processed != 1)
			elog(ERROR, "extension iceberg_export is not installed in this database");
		sync_owner = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0],
													SPI_tuptable->tupdesc, 1, &isnull));
	}
	GetUserIdAndSecContext(&sync_saved_user, &sync_saved_sec);
	SetUserIdAndSecContext(sync_owner, sync_saved_sec | SECURITY_LOCAL_USERID_CHANGE);
}

/* SyncRunEnd finishes SPI, goes back to the calling role, and commits. */
void
SyncRunEnd(void)
{
	SetUserIdAndSecContext(sync_saved_user, sync_saved_sec);
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
}

/* SyncRunRecordStart inserts the run's history row, committed at once. */
static void
SyncRunRecordStart(SyncRun *run)
{
	char		pid[16];
	const char *args[6] = {run->run_id, run->destination, run->trigger,
	run->full_refresh ? "true" : "false", NULL, pid};

	snprintf(pid, sizeof(pid), "%d", MyProcPid);

	StartTransactionCommand();
	args[4] = MemoryContextStrdup(run->context, GetUserNameFromId(GetUserId(), false));
	CommitTransactionCommand();
	SyncRunBegin();
	SyncRunSpi("INSERT INTO iceberg_export.sync_runs "
			   "(run_id, destination, trigger, status, full_refresh, run_by, pid) "
			   "VALUES ($1::uuid, $2, $3, 'running', $4::boolean, $5::name, $6::integer)",
			   6, args, SPI_OK_INSERT);
	SyncRunEnd();
}

/* SyncRunRecordFinish sets the run's final status (and error). */
static void
SyncRunRecordFinish(SyncRun *run, const char *status, const char *error)
{
	const char *args[3] = {run->run_id, status, error};

	SyncRunBegin();
	SyncRunSpi("UPDATE iceberg_export.sync_runs SET status = $2, error = $3, pid = NULL, "
			   "finished_at = clock_timestamp() WHERE run_id = $1::uuid",
			   3, args, SPI_OK_UPDATE);
	/* alerting: listeners of the channel hear of every run that did not succeed */
	if (strcmp(status, "succeeded") != 0)
	{
		const char *notify_args[4] = {run->run_id, run->destination, status, error};

		SyncRunSpi("SELECT pg_notify('" SYNC_FAILED_CHANNEL "', "
				   "json_build_object('run_id', $1, 'destination', $2, 'status', $3, "
				   "'error', left($4, 4000))::text)",
				   4, notify_args, SPI_OK_SELECT);
	}
	if (IcebergExportHistoryRetentionDays > 0)
	{
		char		days[16];
		const char *purge_args[1] = {days};

		snprintf(days, sizeof(days), "%d", IcebergExportHistoryRetentionDays);
		SyncRunSpi("DELETE FROM iceberg_export.sync_runs WHERE status <> 'running' "
				   "AND started_at < now() - make_interval(days => $1::int)",
				   1, purge_args, SPI_OK_DELETE);
	}
	SyncRunEnd();
}

/*
 * SyncRunMarkAbandoned marks earlier runs of the destination that are still
 * "running" as failed: with the destination's lock held, their workers are
 * gone (killed, or the server restarted).  Their files are swept after the
 * next commit of each table.
 */
static void
SyncRunMarkAbandoned(SyncRun *run)
{
	const char *args[2] = {run->destination, run->run_id};

	SyncRunBegin();
	SyncRunSpi("UPDATE iceberg_export.sync_runs SET status = 'failed', "
			   "finished_at = clock_timestamp(), "
			   "error = 'the run ended without finishing: its worker died or the server restarted', "
			   "pid = NULL WHERE destination = $1 AND status = 'running' AND run_id <> $2::uuid",
			   2, args, SPI_OK_UPDATE);
	SyncRunEnd();
}

/* SyncRunRecordTable records one committed table of the run. */
void
SyncRunRecordTable(SyncRun *run, SyncTable *table)
{
	char		rows[32],
				bytes[32],
				snapshot[32];
	const char *args[5] = {run->run_id, table->target_table, rows, bytes, snapshot};

	snprintf(rows, sizeof(rows), INT64_FORMAT, table->rows);
	snprintf(bytes, sizeof(bytes), INT64_FORMAT, table->bytes);
	snprintf(snapshot, sizeof(snapshot), INT64_FORMAT, table->snapshot_id);
	SyncRunBegin();
	SyncRunSpi("INSERT INTO iceberg_export.sync_run_tables "
			   "(run_id, target_table, rows, data_files, bytes, snapshot_id) "
			   "VALUES ($1::uuid, $2, $3::bigint, 1, $4::bigint, $5::bigint)",
			   5, args, SPI_OK_INSERT);
	SyncRunEnd();
}

/* SyncRunOption returns a destination option, or dflt. */
static char *
SyncRunOption(Jsonb *options, const char *key, const char *dflt)
{
	JsonbValue	k;
	JsonbValue *v;

	k.type = jbvString;
	k.val.string.val = (char *) key;
	k.val.string.len = strlen(key);
	v = findJsonbValueFromContainer(&options->root, JB_FOBJECT, &k);
	if (v == NULL || v->type != jbvString)
		return dflt ? pstrdup(dflt) : NULL;
	return pnstrdup(v->val.string.val, v->val.string.len);
}

/*
 * SyncRunLoadConfig reads the destination and the entities it exports,
 * inside the run's reading transaction.
 */
static void
SyncRunLoadConfig(SyncRun *run)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(run->destination)};
	MemoryContext old;
	int			ret;
	Jsonb	   *options;
	bool		isnull;
	char	   *warehouse;
	char	   *codec;

	ret = SPI_execute_with_args("SELECT kind, options, retention_window_days, enabled "
								"FROM iceberg_export.destinations WHERE name = $1",
								1, types, values, NULL, true, 0);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "could not read destination: %s", SPI_result_code_string(ret));
	if (SPI_processed != 1)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("destination \"%s\" does not exist", run->destination)));

	old = MemoryContextSwitchTo(run->context);
	run->kind = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	options = DatumGetJsonbPCopy(SPI_getbinval(SPI_tuptable->vals[0],
											   SPI_tuptable->tupdesc, 2, &isnull));
	run->retention_days = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0],
													  SPI_tuptable->tupdesc, 3, &isnull));
	if (strcmp(run->kind, "local") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("destination kind \"%s\" cannot be synced yet", run->kind)));

	warehouse = SyncRunOption(options, "warehouse", NULL);
	if (warehouse == NULL)
		warehouse = psprintf("%s/iceberg_warehouse", DataDir);
	while (strlen(warehouse) > 1 && warehouse[strlen(warehouse) - 1] == '/')
		warehouse[strlen(warehouse) - 1] = '\0';
	run->warehouse = psprintf("file://%s", warehouse);
	run->namespace = SyncRunOption(options, "namespace", "billing");
	run->catalog_name = SyncRunOption(options, "catalog_name", run->destination);
	codec = SyncRunOption(options, "compression", "zstd");
	if (!ParquetCodecFromName(codec, &run->codec))
		run->codec = PARQUET_CODEC_ZSTD;
	MemoryContextSwitchTo(old);

	/* the entities of the selected groups; NULL selects all */
	ret = SPI_execute_with_args("SELECT e.target_table, e.source_schema, e.source_name "
								"FROM iceberg_export.entities e, iceberg_export.destinations d "
								"WHERE d.name = $1 AND (d.entity_groups IS NULL "
								"OR e.entity_group = ANY (d.entity_groups)) "
								"ORDER BY e.target_table",
								1, types, values, NULL, true, 0);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "could not read entities: %s", SPI_result_code_string(ret));

	old = MemoryContextSwitchTo(run->context);
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		SyncTable  *table = palloc0(sizeof(SyncTable));
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;

		table->target_table = SPI_getvalue(tup, desc, 1);
		table->source_schema = SPI_getvalue(tup, desc, 2);
		table->source_name = SPI_getvalue(tup, desc, 3);
		table->location = psprintf("%s/%s/%s", run->warehouse, run->namespace,
								   table->target_table);
		run->tables = lappend(run->tables, table);
	}
	MemoryContextSwitchTo(old);
	if (run->tables == NIL)
		ereport(ERROR,
				(errcode(ERRCODE_NO_DATA_FOUND),
				 errmsg("destination \"%s\" has no entities to export", run->destination),
				 errhint("Register tables with iceberg_export.register_entity, or select more entity groups.")));
}

/*
 * SyncRunReadAll reads every table in one REPEATABLE READ transaction and
 * stages its Parquet file.
 */
static void
SyncRunReadAll(SyncRun *run)
{
	ListCell   *lc;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	XactIsoLevel = XACT_REPEATABLE_READ;
	PushActiveSnapshot(GetTransactionSnapshot());
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");

	SyncRunLoadConfig(run);
	foreach(lc, run->tables)
		SyncTableStage(run, (SyncTable *) lfirst(lc));

	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
}

/* SyncRunLockDestination takes the destination's session advisory lock. */
static void
SyncRunLockDestination(SyncRun *run)
{
	LOCKTAG		tag;
	uint32		key = hash_bytes((const unsigned char *) run->destination,
								 strlen(run->destination));

	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, SYNC_LOCK_CLASS, key, 2);
	pgstat_report_activity(STATE_RUNNING, "iceberg_export: waiting for the destination lock");
	(void) LockAcquire(&tag, ExclusiveLock, true, false);
}

/*
 * SyncRunExecute runs one sync of a destination.  It owns its
 * transactions; an error is logged and recorded in history, and makes it
 * return false.
 */
bool
SyncRunExecute(const char *destination, const char *run_id, bool full_refresh,
			   const char *trigger)
{
	MemoryContext context = AllocSetContextCreate(TopMemoryContext, "iceberg_export sync",
												  ALLOCSET_DEFAULT_SIZES);
	SyncRun    *run = MemoryContextAllocZero(context, sizeof(SyncRun));

	run->context = context;
	run->destination = MemoryContextStrdup(context, destination);
	run->run_id = MemoryContextStrdup(context, run_id);
	run->trigger = MemoryContextStrdup(context, trigger);
	run->full_refresh = full_refresh;

	SyncRunRecordStart(run);
	SyncProgressBegin(run->run_id, run->destination);

	PG_TRY();
	{
		ListCell   *lc;

		SyncRunLockDestination(run);
		SyncRunMarkAbandoned(run);
		pgstat_report_activity(STATE_RUNNING, "iceberg_export: reading");
		SyncProgressPhase(SYNC_PHASE_READING);
		SyncRunReadAll(run);
		pgstat_report_activity(STATE_RUNNING, "iceberg_export: committing");
		foreach(lc, run->tables)
			SyncTableCommit(run, (SyncTable *) lfirst(lc));
		SyncProgressPhase(SYNC_PHASE_MAINTENANCE);
		SyncSweepStaging(run);
		SyncRunRecordFinish(run, "succeeded", NULL);
		SyncProgressEnd();
	}
	PG_CATCH();
	{
		ErrorData  *edata;
		MemoryContext old = MemoryContextSwitchTo(context);

		HOLD_INTERRUPTS();
		edata = CopyErrorData();
		EmitErrorReport();
		FlushErrorState();
		AbortOutOfAnyTransaction();
		MemoryContextSwitchTo(old);
		RESUME_INTERRUPTS();

		SyncRunRecordFinish(run, edata->sqlerrcode == ERRCODE_QUERY_CANCELED ? "cancelled" : "failed",
							edata->detail
							? psprintf("%s: %s", edata->message, edata->detail)
							: edata->message);
		SyncProgressEnd();
		return false;
	}
	PG_END_TRY();
	return true;
}
