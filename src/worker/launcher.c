/*-------------------------------------------------------------------------
 *
 * launcher.c
 *	  The launcher: runs each destination on its sync_interval.
 *
 * Started when iceberg_export is in shared_preload_libraries, connected to
 * the database iceberg_export.database names.  Once a second it starts
 * the sync of the most overdue destination (one start per second staggers
 * them), never one that is running, and never more than
 * iceberg_export.max_concurrent_syncs at once.  Configuration is read anew
 * every second, and the GUCs on SIGHUP.  Each sync runs in its own worker,
 * as the extension's owner, with trigger "schedule"; a failing destination
 * affects only its own runs.
 *
 * On start it marks runs left "running" whose worker is gone (a crash, a
 * restart) as failed.  Their staged and published-but-uncommitted files
 * are removed by the next run of their destination, after its commit.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "sync/sync.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "worker/worker.h"

/* A sync this launcher started and has not seen end yet. */
typedef struct LauncherRun
{
	char		destination[NAMEDATALEN];
	BackgroundWorkerHandle *handle;
} LauncherRun;

/* in TopMemoryContext: the loop's own context is reset every second */
static List *launcher_runs = NIL;

/* LauncherRegister registers the launcher; called from _PG_init at preload. */
void
LauncherRegister(void)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = 5;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "iceberg_export");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "iceberg_export_launcher_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "iceberg_export launcher");
	snprintf(worker.bgw_type, BGW_MAXLEN, "iceberg_export launcher");
	RegisterBackgroundWorker(&worker);
}

/* LauncherBegin starts a transaction with a snapshot and SPI. */
static void
LauncherBegin(void)
{
	/* a worker sets the statement time itself: now() would stand still */
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	SPI_connect();
}

/* LauncherEnd commits what LauncherBegin started. */
static void
LauncherEnd(void)
{
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
}

/* LauncherInstalled tells whether the extension exists in this database. */
static bool
LauncherInstalled(void)
{
	return SPI_execute("SELECT FROM pg_extension WHERE extname = 'iceberg_export'",
					   true, 1) == SPI_OK_SELECT && SPI_processed == 1;
}

/* LauncherRecoverRuns marks runs left running by a dead worker as failed. */
static void
LauncherRecoverRuns(void)
{
	LauncherBegin();
	if (LauncherInstalled())
	{
		int			ret = SPI_execute("UPDATE iceberg_export.sync_runs SET status = 'failed', "
									  "finished_at = clock_timestamp(), pid = NULL, "
									  "error = 'the server restarted, or the run''s worker died, before it finished' "
									  "WHERE status = 'running' AND NOT EXISTS "
									  "(SELECT FROM pg_stat_activity a WHERE a.pid = sync_runs.pid "
									  "AND a.backend_type = 'iceberg_export sync')",
									  false, 0);

		if (ret != SPI_OK_UPDATE)
			elog(ERROR, "could not mark abandoned runs: %s", SPI_result_code_string(ret));
		if (SPI_processed > 0)
			ereport(LOG,
					(errmsg("iceberg_export launcher marked " UINT64_FORMAT " abandoned sync runs as failed",
							SPI_processed)));
	}
	LauncherEnd();
}

/* LauncherForgetEnded drops the runs whose worker has stopped. */
static void
LauncherForgetEnded(void)
{
	ListCell   *lc;

	foreach(lc, launcher_runs)
	{
		LauncherRun *run = lfirst(lc);
		pid_t		pid;

		if (GetBackgroundWorkerPid(run->handle, &pid) == BGWH_STOPPED)
		{
			pfree(run->handle);
			launcher_runs = foreach_delete_current(launcher_runs, lc);
			pfree(run);
		}
	}
}

/* LauncherTick starts the most overdue sync, if any may start now. */
static void
LauncherTick(void)
{
	char	   *due = NULL;
	Oid			owner = InvalidOid;
	int			running;
	bool		isnull;
	SyncWorkerArgs args;
	LauncherRun *run;
	BackgroundWorkerHandle *handle;

	LauncherForgetEnded();
	LauncherBegin();
	if (!LauncherInstalled())
	{
		LauncherEnd();
		return;
	}
	if (SPI_execute("SELECT count(*)::int FROM iceberg_export.sync_runs WHERE status = 'running'",
					true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not count running syncs");
	running = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	running = Max(running, list_length(launcher_runs));
	if (running < IcebergExportMaxConcurrentSyncs &&
		SPI_execute("SELECT d.name, e.extowner FROM iceberg_export.destinations d, "
					"pg_extension e, LATERAL (SELECT max(r.started_at) AS last "
					"FROM iceberg_export.sync_runs r WHERE r.destination = d.name) l "
					"WHERE e.extname = 'iceberg_export' AND d.enabled "
					"AND d.sync_interval IS NOT NULL "
					"AND NOT EXISTS (SELECT FROM iceberg_export.sync_runs r "
					"WHERE r.destination = d.name AND r.status = 'running') "
					"AND (l.last IS NULL OR l.last + d.sync_interval <= now()) "
					"ORDER BY l.last + d.sync_interval NULLS FIRST, d.name LIMIT 1",
					true, 1) == SPI_OK_SELECT && SPI_processed == 1)
	{
		MemoryContext spi = MemoryContextSwitchTo(TopMemoryContext);

		due = pstrdup(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1));
		MemoryContextSwitchTo(spi);
		owner = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2,
											   &isnull));
	}
	LauncherEnd();
	if (due == NULL)
		return;

	/* a run this launcher started may not have recorded itself yet */
	{
		ListCell   *lc;

		foreach(lc, launcher_runs)
			if (strcmp(((LauncherRun *) lfirst(lc))->destination, due) == 0)
				return;
	}

	SyncWorkerArgsInit(&args, due, owner, false, "schedule");
	{
		/* the handle outlives this iteration's memory */
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		handle = SyncWorkerLaunch(&args, false);
		MemoryContextSwitchTo(old);
	}
	if (handle == NULL)
	{
		ereport(WARNING,
				(errmsg("iceberg_export launcher could not start the sync of \"%s\"", due),
				 errhint("Raise max_worker_processes.")));
		return;
	}
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		run = palloc0(sizeof(LauncherRun));
		strlcpy(run->destination, due, sizeof(run->destination));
		run->handle = handle;
		launcher_runs = lappend(launcher_runs, run);
		MemoryContextSwitchTo(old);
	}
	pfree(due);
}

/* iceberg_export_launcher_main is the launcher's entry point. */
void
iceberg_export_launcher_main(Datum main_arg)
{
	MemoryContext loop_context;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnection(IcebergExportDatabase, NULL, 0);
	pgstat_report_appname("iceberg_export launcher");
	ereport(LOG, (errmsg("iceberg_export launcher started in database \"%s\"",
						 IcebergExportDatabase)));

	loop_context = AllocSetContextCreate(TopMemoryContext, "iceberg_export launcher loop",
										 ALLOCSET_DEFAULT_SIZES);
	LauncherRecoverRuns();
	for (;;)
	{
		MemoryContext old;

		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 1000L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}

		old = MemoryContextSwitchTo(loop_context);
		PG_TRY();
		{
			LauncherTick();
		}
		PG_CATCH();
		{
			/* log it, and try again next second */
			EmitErrorReport();
			FlushErrorState();
			AbortOutOfAnyTransaction();
		}
		PG_END_TRY();
		MemoryContextSwitchTo(old);
		MemoryContextReset(loop_context);
	}
}
