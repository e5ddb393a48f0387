/*-------------------------------------------------------------------------
 *
 * progress.c
 *	  Progress of running syncs in shared memory, for sync_progress.
 *
 * Each sync worker takes a slot for its run and updates the phase and the
 * rows and bytes of each table as rows flow (every 128 rows), without
 * writing any table row.  The slots exist only when iceberg_export is in
 * shared_preload_libraries; without it the calls do nothing and the view
 * is empty.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "sync/sync.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"
#include "utils/uuid.h"

#define PROGRESS_SLOTS 32
#define PROGRESS_TABLES 64

typedef struct ProgressTable
{
	char		name[NAMEDATALEN];
	int64		rows;
	int64		bytes;
} ProgressTable;

typedef struct ProgressSlot
{
	slock_t		mutex;
	pid_t		pid;			/* 0: free */
	char		run_id[40];
	char		destination[NAMEDATALEN];
	TimestampTz started_at;
	SyncPhase	phase;
	int			ntables;
	ProgressTable tables[PROGRESS_TABLES];
} ProgressSlot;

static ProgressSlot *progress_slots = NULL;
static ProgressSlot *my_slot = NULL;
static int	my_table = -1;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static const char *const phase_names[] = {
	"snapshot", "reading", "writing", "publishing", "committing", "maintenance"
};

PG_FUNCTION_INFO_V1(sync_progress);

/* ProgressShmemRequest asks for the slots' shared memory. */
static void
ProgressShmemRequest(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(sizeof(ProgressSlot) * PROGRESS_SLOTS);
}

/* ProgressShmemStartup attaches to (or creates) the slots. */
static void
ProgressShmemStartup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	progress_slots = ShmemInitStruct("iceberg_export sync progress",
									 sizeof(ProgressSlot) * PROGRESS_SLOTS, &found);
	if (!found)
	{
		memset(progress_slots, 0, sizeof(ProgressSlot) * PROGRESS_SLOTS);
		for (int i = 0; i < PROGRESS_SLOTS; i++)
			SpinLockInit(&progress_slots[i].mutex);
	}
	LWLockRelease(AddinShmemInitLock);
}

/* SyncProgressShmemInit installs the hooks; called from _PG_init at preload. */
void
SyncProgressShmemInit(void)
{
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = ProgressShmemRequest;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = ProgressShmemStartup;
}

/* ProgressRelease frees this process's slot (also at exit). */
static void
ProgressRelease(int code, Datum arg)
{
	if (my_slot == NULL)
		return;
	SpinLockAcquire(&my_slot->mutex);
	my_slot->pid = 0;
	SpinLockRelease(&my_slot->mutex);
	my_slot = NULL;
}

/* SyncProgressBegin takes a slot for a run; without one, progress is not shown. */
void
SyncProgressBegin(const char *run_id, const char *destination)
{
	static bool registered = false;

	if (progress_slots == NULL || my_slot != NULL)
		return;
	for (int i = 0; i < PROGRESS_SLOTS && my_slot == NULL; i++)
	{
		ProgressSlot *slot = &progress_slots[i];

		SpinLockAcquire(&slot->mutex);
		if (slot->pid == 0)
		{
			slot->pid = MyProcPid;
			strlcpy(slot->run_id, run_id, sizeof(slot->run_id));
			strlcpy(slot->destination, destination, sizeof(slot->destination));
			slot->started_at = GetCurrentTimestamp();
			slot->phase = SYNC_PHASE_SNAPSHOT;
			slot->ntables = 0;
			my_slot = slot;
		}
		SpinLockRelease(&slot->mutex);
	}
	if (my_slot != NULL && !registered)
	{
		before_shmem_exit(ProgressRelease, (Datum) 0);
		registered = true;
	}
	my_table = -1;
}

/* SyncProgressPhase sets the run's phase. */
void
SyncProgressPhase(SyncPhase phase)
{
	if (my_slot == NULL)
		return;
	SpinLockAcquire(&my_slot->mutex);
	my_slot->phase = phase;
	SpinLockRelease(&my_slot->mutex);
}

/* SyncProgressTable makes table the one whose rows and bytes are counted. */
void
SyncProgressTable(const char *table)
{
	if (my_slot == NULL)
		return;
	SpinLockAcquire(&my_slot->mutex);
	my_table = -1;
	for (int i = 0; i < my_slot->ntables; i++)
		if (strcmp(my_slot->tables[i].name, table) == 0)
			my_table = i;
	if (my_table < 0 && my_slot->ntables < PROGRESS_TABLES)
	{
		my_table = my_slot->ntables++;
		strlcpy(my_slot->tables[my_table].name, table, NAMEDATALEN);
		my_slot->tables[my_table].rows = 0;
		my_slot->tables[my_table].bytes = 0;
	}
	SpinLockRelease(&my_slot->mutex);
}

/* SyncProgressCount sets the current table's rows and bytes so far. */
void
SyncProgressCount(int64 rows, int64 bytes)
{
	if (my_slot == NULL || my_table < 0)
		return;
	SpinLockAcquire(&my_slot->mutex);
	my_slot->tables[my_table].rows = rows;
	my_slot->tables[my_table].bytes = bytes;
	SpinLockRelease(&my_slot->mutex);
}

/* SyncProgressEnd gives the slot back. */
void
SyncProgressEnd(void)
{
	ProgressRelease(0, (Datum) 0);
}

/*
 * sync_progress() returns one row per table of every running sync: run id,
 * destination, pid, started_at, phase, table, rows and bytes so far.
 */
Datum
sync_progress(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	if (progress_slots == NULL)
		return (Datum) 0;
	for (int i = 0; i < PROGRESS_SLOTS; i++)
	{
		ProgressSlot copy;

		SpinLockAcquire(&progress_slots[i].mutex);
		memcpy(&copy, &progress_slots[i], sizeof(copy));
		SpinLockRelease(&progress_slots[i].mutex);
		if (copy.pid == 0)
			continue;
		for (int t = 0; t < Max(copy.ntables, 1); t++)
		{
			Datum		values[8];
			bool		nulls[8] = {0};

			values[0] = DirectFunctionCall1(uuid_in, CStringGetDatum(copy.run_id));
			values[1] = CStringGetTextDatum(copy.destination);
			values[2] = Int32GetDatum(copy.pid);
			values[3] = TimestampTzGetDatum(copy.started_at);
			values[4] = CStringGetTextDatum(phase_names[copy.phase]);
			if (copy.ntables == 0)
				nulls[5] = nulls[6] = nulls[7] = true;
			else
			{
				values[5] = CStringGetTextDatum(copy.tables[t].name);
				values[6] = Int64GetDatum(copy.tables[t].rows);
				values[7] = Int64GetDatum(copy.tables[t].bytes);
			}
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	}
	return (Datum) 0;
}
