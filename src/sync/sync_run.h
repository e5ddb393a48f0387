/*-------------------------------------------------------------------------
 *
 * sync_run.h
 *	  State of one sync run, shared by sync_run.c and sync_table.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ICEBERG_EXPORT_SYNC_RUN_H
#define ICEBERG_EXPORT_SYNC_RUN_H

#include "postgres.h"

#include "iceberg/manifest.h"
#include "nodes/pg_list.h"
#include "parquet/parquet.h"
#include "sync/sync.h"

/* One exported table of a run. */
typedef struct SyncTable
{
	char	   *target_table;
	char	   *source_schema;
	char	   *source_name;
	char	   *location;		/* file://<warehouse>/<namespace>/<table> */
	char	   *staged;			/* the staged data file */
	char	   *data_file;		/* where it is published */
	const IcebergType *schema;	/* of the rows read */
	IcebergDataFile file;		/* metrics for the manifest */
	int64		rows;
	int64		bytes;
	int64		snapshot_id;
} SyncTable;

/* One run of one destination. */
typedef struct SyncRun
{
	MemoryContext context;
	char	   *destination;
	char	   *run_id;
	char	   *trigger;
	bool		full_refresh;
	char	   *kind;
	char	   *warehouse;		/* file://… without a trailing slash */
	char	   *namespace;
	char	   *catalog_name;
	int			retention_days;
	ParquetCodec codec;
	List	   *tables;			/* of SyncTable */
} SyncRun;

/* sync_run.c */
extern void SyncRunBegin(void);
extern void SyncRunEnd(void);
extern void SyncRunRecordTable(SyncRun *run, SyncTable *table);

/* sync_table.c */
extern void SyncTableStage(SyncRun *run, SyncTable *table);
extern void SyncTableCommit(SyncRun *run, SyncTable *table);
extern void SyncSweepStaging(SyncRun *run);

#endif							/* ICEBERG_EXPORT_SYNC_RUN_H */
