/*-------------------------------------------------------------------------
 *
 * iceberg_export.c
 *	  Module entry point: _PG_init, GUCs and the version() function.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "sync/sync.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "worker/worker.h"

PG_MODULE_MAGIC;

/*
 * GUCs: every iceberg_export.* setting is defined here, each C variable under
 * a comment naming its GUC.
 */

/* iceberg_export.history_retention_days: sync history older than this is purged */
int			IcebergExportHistoryRetentionDays = 90;

/* iceberg_export.database: the database the launcher works in */
char	   *IcebergExportDatabase = NULL;

/* iceberg_export.max_concurrent_syncs: scheduled syncs the launcher runs at once */
int			IcebergExportMaxConcurrentSyncs = 2;

/* iceberg_export.fault_injection: test-only failure point of a sync run */
char	   *IcebergExportFaultInjection = NULL;

void		_PG_init(void);

PG_FUNCTION_INFO_V1(version);

/*
 * _PG_init defines the GUCs and calls each module's init function (one line
 * per module, in DESIGN.md §2 order).
 */
void
_PG_init(void)
{
	DefineCustomIntVariable("iceberg_export.history_retention_days",
							"Sync history older than this many days is purged after each run.",
							"0 keeps the history forever.",
							&IcebergExportHistoryRetentionDays,
							90, 0, 36500,
							PGC_SIGHUP,
							0,
							NULL, NULL, NULL);

	DefineCustomStringVariable("iceberg_export.database",
							   "Database in which the launcher runs scheduled syncs.",
							   "Read when the launcher starts.",
							   &IcebergExportDatabase,
							   "postgres",
							   PGC_SIGHUP,
							   0,
							   NULL, NULL, NULL);

	DefineCustomIntVariable("iceberg_export.max_concurrent_syncs",
							"Most scheduled syncs the launcher runs at once.",
							NULL,
							&IcebergExportMaxConcurrentSyncs,
							2, 1, 64,
							PGC_SIGHUP,
							0,
							NULL, NULL, NULL);

	DefineCustomStringVariable("iceberg_export.fault_injection",
							   "Makes sync runs fail at a named point (tests only).",
							   "Points: after_publish, before_commit; sleep_<point> waits there instead. Empty: none.",
							   &IcebergExportFaultInjection,
							   "",
							   PGC_SUSET,
							   0,
							   NULL, NULL, NULL);

	MarkGUCPrefixReserved("iceberg_export");

	/* the launcher exists only when the library is preloaded */
	if (process_shared_preload_libraries_in_progress)
	{
		SyncProgressShmemInit();
		LauncherRegister();
	}
}

/*
 * version returns the version of the loaded library, for
 * iceberg_export.version().
 */
Datum
version(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(ICEBERG_EXPORT_VERSION));
}
