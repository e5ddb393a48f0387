/*-------------------------------------------------------------------------
 *
 * sync_worker.c
 *	  iceberg_sync(): runs each sync in a dynamic background worker.
 *
 * The caller starts one worker per destination, connected to the same
 * database as the calling role, waits for it, and reads the run's outcome
 * from the history it wrote.  The worker owns its transactions, so its
 * history rows survive whatever happens to the caller's transaction, and
 * iceberg_sync() raises an error when a run failed, so pg_cron records
 * the failure as well.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "sync/sync.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/tuplestore.h"
#include "utils/uuid.h"
#include "worker/worker.h"

PG_FUNCTION_INFO_V1(iceberg_sync);

/* SyncUuidText formats a uuid. */
char *
SyncUuidText(const pg_uuid_t *uuid)
{
	return DatumGetCString(DirectFunctionCall1(uuid_out, UUIDPGetDatum(uuid)));
}

/* iceberg_export_sync_worker_main is the entry point of a sync worker. */
void
iceberg_export_sync_worker_main(Datum main_arg)
{
	SyncWorkerArgs args;
	bool		ok;

	memcpy(&args, MyBgworkerEntry->bgw_extra, sizeof(args));
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(args.database, args.role, 0);
	pgstat_report_appname("iceberg_export sync");

	if (args.fault[0] != '\0')
		SetConfigOption("iceberg_export.fault_injection", args.fault,
						PGC_SUSET, PGC_S_SESSION);

	ok = SyncRunExecute(args.destination, SyncUuidText(&args.run_id),
						args.full_refresh, args.trigger);
	proc_exit(ok ? 0 : 1);
}

/*
 * SyncWorkerLaunch starts the worker of one run; returns NULL when no
 * background worker slot is free.  With notify, this backend is told when
 * the worker starts and stops.
 */
BackgroundWorkerHandle *
SyncWorkerLaunch(const SyncWorkerArgs *args, bool notify)
{
	BackgroundWorker worker;
	BackgroundWorkerHandle *handle;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "iceberg_export");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "iceberg_export_sync_worker_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "iceberg_export sync of %s", args->destination);
	snprintf(worker.bgw_type, BGW_MAXLEN, "iceberg_export sync");
	worker.bgw_notify_pid = notify ? MyProcPid : 0;
	memcpy(worker.bgw_extra, args, sizeof(*args));
	if (!RegisterDynamicBackgroundWorker(&worker, &handle))
		return NULL;
	return handle;
}

/* SyncWorkerArgsInit fills in the arguments of a new run, with a fresh run id. */
void
SyncWorkerArgsInit(SyncWorkerArgs *args, const char *destination, Oid role,
				   bool full_refresh, const char *trigger)
{
	memset(args, 0, sizeof(*args));
	args->database = MyDatabaseId;
	args->role = role;
	if (!pg_strong_random(args->run_id.data, UUID_LEN))
		elog(ERROR, "could not generate a run id");
	args->run_id.data[6] = (args->run_id.data[6] & 0x0f) | 0x40;
	args->run_id.data[8] = (args->run_id.data[8] & 0x3f) | 0x80;
	args->full_refresh = full_refresh;
	strlcpy(args->trigger, trigger, sizeof(args->trigger));
	if (IcebergExportFaultInjection != NULL)
		strlcpy(args->fault, IcebergExportFaultInjection, sizeof(args->fault));
	strlcpy(args->destination, destination, sizeof(args->destination));
}

/* SyncWorkerRun starts the worker of one run and waits for it to end. */
static void
SyncWorkerRun(const SyncWorkerArgs *args)
{
	BackgroundWorkerHandle *handle = SyncWorkerLaunch(args, true);
	pid_t		started;
	volatile pid_t pid;

	if (handle == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("could not start a background worker for the sync of \"%s\"",
						args->destination),
				 errhint("Raise max_worker_processes, or run fewer syncs at once.")));
	if (WaitForBackgroundWorkerStartup(handle, &started) != BGWH_STARTED)
		ereport(ERROR,
				(errcode(ERRCODE_CONNECTION_FAILURE),
				 errmsg("the background worker for the sync of \"%s\" did not start",
						args->destination)));
	pid = started;
	/* cancelling the caller cancels the run too, which then records itself */
	PG_TRY();
	{
		(void) WaitForBackgroundWorkerShutdown(handle);
	}
	PG_CATCH();
	{
		kill(pid, SIGINT);
		PG_RE_THROW();
	}
	PG_END_TRY();
}

/* SyncCheckAllowed raises an error unless the caller may run syncs. */
static void
SyncCheckAllowed(void)
{
	Oid			admin = get_role_oid("iceberg_export_admin", true);

	if (!superuser() && !(OidIsValid(admin) && has_privs_of_role(GetUserId(), admin)))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to run iceberg_export syncs"),
				 errhint("Grant the iceberg_export_admin role to the user.")));
}

/* SyncDestinations lists the destinations to sync: one, or every enabled one. */
static List *
SyncDestinations(const char *destination)
{
	List	   *names = NIL;
	Oid			types[1] = {TEXTOID};
	Datum		values[1];
	char		nulls[1] = {' '};
	MemoryContext caller = CurrentMemoryContext;
	int			ret;

	if (destination != NULL)
		values[0] = CStringGetTextDatum(destination);
	else
		nulls[0] = 'n';
	SPI_connect();
	ret = SPI_execute_with_args("SELECT name, enabled FROM iceberg_export.destinations "
								"WHERE $1 IS NULL AND enabled OR name = $1 ORDER BY name",
								1, types, values, nulls, true, 0);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "could not read destinations: %s", SPI_result_code_string(ret));
	if (destination != NULL && SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("destination \"%s\" does not exist", destination),
				 errhint("Create it with iceberg_export.create_destination.")));
	if (destination != NULL &&
		strcmp(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2), "t") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("destination \"%s\" is disabled", destination),
				 errhint("Enable it with iceberg_export.alter_destination('%s', enabled => true).",
						 destination)));
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		MemoryContext spi = MemoryContextSwitchTo(caller);

		names = lappend(names, pstrdup(SPI_getvalue(SPI_tuptable->vals[i],
													SPI_tuptable->tupdesc, 1)));
		MemoryContextSwitchTo(spi);
	}
	SPI_finish();
	return names;
}

/*
 * SyncReadOutcome appends the run's history to the result and returns its
 * error when it did not succeed.
 */
static char *
SyncReadOutcome(ReturnSetInfo *rsinfo, const char *run_id, const char *destination)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(run_id)};
	char	   *error = NULL;
	int			ret;

	SPI_connect();
	ret = SPI_execute_with_args("SELECT run_id, destination, status, "
								"(SELECT count(*)::int FROM jsonb_object_keys(tables)), "
								"rows, data_files, bytes, started_at, finished_at, error "
								"FROM iceberg_export.sync_history WHERE run_id = $1::uuid",
								1, types, values, NULL, false, 0);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "could not read sync history: %s", SPI_result_code_string(ret));
	if (SPI_processed != 1)
		error = psprintf(IsolationUsesXactSnapshot()
						 ? "the run of \"%s\" is not visible to this transaction's snapshot; call iceberg_sync() outside REPEATABLE READ or SERIALIZABLE transactions"
						 : "the sync worker of \"%s\" ended without recording its run",
						 destination);
	else
	{
		HeapTuple	tup = SPI_tuptable->vals[0];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		Datum		row[9];
		bool		isnull[9];
		char	   *status = SPI_getvalue(tup, desc, 3);

		for (int i = 0; i < 9; i++)
			row[i] = SPI_getbinval(tup, desc, i + 1, &isnull[i]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, row, isnull);
		if (strcmp(status, "succeeded") != 0)
		{
			char	   *e = SPI_getvalue(tup, desc, 10);

			error = psprintf("%s", e ? e : status);
		}
	}
	if (error != NULL)
	{
		char	   *copy = SPI_palloc(strlen(error) + 1);

		strcpy(copy, error);
		error = copy;
	}
	SPI_finish();
	return error;
}

/*
 * iceberg_sync(destination, full_refresh) syncs one destination, or every
 * enabled one, and returns one summary row per run.  A failed run raises
 * an error after every run has been tried.
 */
Datum
iceberg_sync(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *destination = PG_ARGISNULL(0) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(0));
	bool		full_refresh = PG_ARGISNULL(1) ? false : PG_GETARG_BOOL(1);
	const char *appname = application_name ? application_name : "";
	List	   *names;
	ListCell   *lc;
	char	   *failed = NULL;
	char	   *failure = NULL;
	int			nfailed = 0;

	InitMaterializedSRF(fcinfo, 0);
	SyncCheckAllowed();
	if (IsTransactionBlock())
		ereport(NOTICE,
				(errmsg("iceberg_sync reads committed data only"),
				 errdetail("The sync runs in its own worker and transactions; changes of this transaction that are not committed yet are not exported.")));

	names = SyncDestinations(destination);
	foreach(lc, names)
	{
		SyncWorkerArgs args;
		char	   *run_id;
		char	   *error;

		SyncWorkerArgsInit(&args, (const char *) lfirst(lc), GetUserId(), full_refresh,
						   strcmp(appname, "pg_cron") == 0 || (MyBgworkerEntry != NULL && strcmp(MyBgworkerEntry->bgw_type, "pg_cron") == 0) ? "cron" : "manual");
		run_id = SyncUuidText(&args.run_id);

		SyncWorkerRun(&args);
		error = SyncReadOutcome(rsinfo, run_id, args.destination);
		if (error != NULL)
		{
			nfailed++;
			if (failed == NULL)
			{
				failed = pstrdup(args.destination);
				failure = error;
			}
		}
	}

	if (nfailed > 0)
		ereport(ERROR,
				(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
				 errmsg("sync of destination \"%s\" failed", failed),
				 errdetail_internal("%s", failure),
				 nfailed > 1 ? errhint("%d destinations failed; see iceberg_export.sync_history.", nfailed)
				 : errhint("See iceberg_export.sync_history for the run.")));
	return (Datum) 0;
}
