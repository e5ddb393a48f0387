/*-------------------------------------------------------------------------
 *
 * worker.h
 *	  Background workers: the interface of src/worker/.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ICEBERG_EXPORT_WORKER_H
#define ICEBERG_EXPORT_WORKER_H

#include "postgres.h"

#include "postmaster/bgworker.h"
#include "utils/uuid.h"

/* What a sync worker is told, in bgw_extra. */
typedef struct SyncWorkerArgs
{
	Oid			database;
	Oid			role;
	pg_uuid_t	run_id;
	bool		full_refresh;
	char		trigger[9];
	char		fault[24];
	char		destination[NAMEDATALEN];
} SyncWorkerArgs;

StaticAssertDecl(sizeof(SyncWorkerArgs) <= BGW_EXTRALEN,
				 "SyncWorkerArgs must fit in bgw_extra");

/* sync_worker.c */
extern void SyncWorkerArgsInit(SyncWorkerArgs *args, const char *destination, Oid role,
							   bool full_refresh, const char *trigger);
extern BackgroundWorkerHandle *SyncWorkerLaunch(const SyncWorkerArgs *args, bool notify);
extern char *SyncUuidText(const pg_uuid_t *uuid);

/* Entry points of the sync worker (started by iceberg_sync() and the
 * launcher) and of the launcher (started with shared_preload_libraries). */
extern PGDLLEXPORT void iceberg_export_sync_worker_main(Datum main_arg);
extern PGDLLEXPORT void iceberg_export_launcher_main(Datum main_arg);

/* launcher.c */
extern void LauncherRegister(void);

#endif							/* ICEBERG_EXPORT_WORKER_H */
