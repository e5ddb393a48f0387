/*-------------------------------------------------------------------------
 *
 * sync_table.c
 *	  Staging, publishing and committing one table of a sync run.
 *
 * File names carry the run id, so what a snapshot references follows from
 * the run ids in the snapshots' summaries:
 *   data/<run_id>-00000.parquet
 *   metadata/<run_id>-m0.avro                   the run's manifest
 *   metadata/snap-<snapshot_id>-1-<run_id>.avro the manifest list
 * After a commit, every data file, manifest and manifest list whose run id
 * no remaining snapshot carries is deleted: files of expired snapshots,
 * and files a failed run published but never committed.  Nothing is ever
 * deleted before the catalog swap succeeded.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/catalog.h"
#include "executor/spi.h"
#include "iceberg/metadata.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "storage/storage.h"
#include "sync/sync_run.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#define ICEBERG_EXPORT_RUN_ID_KEY "iceberg-export.run-id"

/* SyncNowMs is the current time in milliseconds since 1970. */
static int64
SyncNowMs(void)
{
	TimestampTz now = GetCurrentTimestamp();

	return now / 1000 + (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * 1000;
}

/*
 * SyncFaultPoint is the test-only fault hook: when
 * iceberg_export.fault_injection names point the run fails there, and when
 * it names "sleep_" and point the run waits there (up to a minute, or
 * until cancelled) so that a test can kill it at that phase.
 */
static void
SyncFaultPoint(const char *point)
{
	const char *fault = IcebergExportFaultInjection;

	if (fault == NULL || fault[0] == '\0')
		return;
	if (strcmp(fault, point) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("iceberg_export fault injected at \"%s\"", point),
				 errhint("iceberg_export.fault_injection is set; it is for tests only.")));
	if (strncmp(fault, "sleep_", 6) == 0 && strcmp(fault + 6, point) == 0)
	{
		pgstat_report_activity(STATE_RUNNING, psprintf("iceberg_export: sleeping at %s", point));
		for (int i = 0; i < 600; i++)
		{
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							 100L, PG_WAIT_EXTENSION);
			ResetLatch(MyLatch);
			CHECK_FOR_INTERRUPTS();
		}
	}
}

/* SyncStageProgress reports a table's rows and bytes so far, every batch. */
static void
SyncStageProgress(void *arg, int64 rows)
{
	ParquetWriter *writer = (ParquetWriter *) arg;

	SyncProgressCount(rows, ParquetWriterBytesWritten(writer) +
					  ParquetWriterBufferedBytes(writer));
}

/*
 * SyncTableStage reads one source relation (in the run's REPEATABLE READ
 * transaction) into a Parquet file under the staging prefix.
 */
void
SyncTableStage(SyncRun *run, SyncTable *table)
{
	StringInfoData query;
	SPIPlanPtr	plan;
	CachedPlanSource *source;
	SyncRowEncoder *encoder;
	ParquetWriterOptions options;
	ParquetWriter *writer;
	StorageWriter *out;
	ParquetColumnStats *stats;
	int			nleaves;
	MemoryContext old;
	Oid			types[1] = {TEXTOID};
	Datum		values[1];
	int			ret;

	/* the source must still exist: a clear error, not a missing table */
	values[0] = CStringGetTextDatum(quote_qualified_identifier(table->source_schema,
															   table->source_name));
	ret = SPI_execute_with_args("SELECT to_regclass($1) IS NOT NULL", 1, types, values,
								NULL, true, 1);
	if (ret != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not look up source of \"%s\"", table->target_table);
	if (strcmp(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1), "t") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("source \"%s.%s\" of exported table \"%s\" does not exist",
						table->source_schema, table->source_name, table->target_table),
				 errhint("Recreate it, or stop exporting it with iceberg_export.unregister_entity('%s').",
						 table->target_table)));

	pgstat_report_activity(STATE_RUNNING, "iceberg_export: reading");
	initStringInfo(&query);
	appendStringInfo(&query, "SELECT * FROM %s",
					 quote_qualified_identifier(table->source_schema, table->source_name));
	plan = SPI_prepare(query.data, 0, NULL);
	if (plan == NULL)
		elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
	source = linitial(SPI_plan_get_plan_sources(plan));

	old = MemoryContextSwitchTo(run->context);
	encoder = SyncRowEncoderCreate(source->resultDesc, run->context);
	table->schema = SyncRowEncoderIcebergSchema(encoder);
	table->staged = psprintf("%s/_write_ahead_staging/%s/%s/%s-00000.parquet",
							 run->warehouse, table->target_table, run->run_id, run->run_id);
	table->data_file = psprintf("%s/data/%s-00000.parquet", table->location, run->run_id);
	MemoryContextSwitchTo(old);

	ParquetWriterOptionsInit(&options);
	options.codec = run->codec;
	options.created_by = ICEBERG_EXPORT_CREATED_BY;
	out = StorageWriterOpen(table->staged, false);
	PG_TRY();
	{
		writer = ParquetWriterCreate(SyncRowEncoderParquetSchema(encoder), &options,
									 StorageWriterSink, out);
		SyncProgressTable(table->target_table);
		SyncProgressPhase(SYNC_PHASE_READING);
		table->rows = SyncStreamPlan(plan, encoder, writer, true,
									 SyncStageProgress, writer);
		SyncProgressPhase(SYNC_PHASE_WRITING);
		table->bytes = ParquetWriterClose(writer);
		SyncProgressCount(table->rows, table->bytes);
		StorageWriterFinish(out);
	}
	PG_CATCH();
	{
		StorageWriterAbort(out);
		PG_RE_THROW();
	}
	PG_END_TRY();

	/* the metrics outlive the writer */
	nleaves = ParquetWriterLeafCount(writer);
	stats = palloc(sizeof(ParquetColumnStats) * nleaves);
	for (int i = 0; i < nleaves; i++)
		ParquetWriterColumnStats(writer, i, &stats[i]);
	old = MemoryContextSwitchTo(run->context);
	memset(&table->file, 0, sizeof(table->file));
	table->file.content = ICEBERG_CONTENT_DATA;
	table->file.file_path = table->data_file;
	table->file.file_format = "PARQUET";
	table->file.record_count = table->rows;
	table->file.file_size_in_bytes = table->bytes;
	table->file.sort_order_id = -1;
	IcebergDataFileFromParquetStats(&table->file, table->schema, stats, nleaves);
	MemoryContextSwitchTo(old);
	ParquetWriterDestroy(writer);
	SPI_freeplan(plan);
}

/* SyncRunIdOf returns the run id a file name starts with (or carries), or NULL. */
static char *
SyncRunIdOf(const char *location)
{
	const char *base = strrchr(location, '/');
	const char *p;

	base = base ? base + 1 : location;
	if (strncmp(base, "snap-", 5) == 0)
	{
		/* snap-<snapshot_id>-<attempt>-<run_id>.avro */
		p = strrchr(base, '.');
		if (p == NULL || p - base < 5 + ICEBERG_UUID_LEN)
			return NULL;
		return pnstrdup(p - ICEBERG_UUID_LEN, ICEBERG_UUID_LEN);
	}
	if (strlen(base) > ICEBERG_UUID_LEN && base[ICEBERG_UUID_LEN] == '-' &&
		base[8] == '-' && base[13] == '-')
		return pnstrdup(base, ICEBERG_UUID_LEN);
	return NULL;
}

/* SyncLiveRunIds lists the run ids the metadata's snapshots carry. */
static List *
SyncLiveRunIds(IcebergMetadata *md)
{
	List	   *ids = NIL;
	ListCell   *lc;

	foreach(lc, IcebergMetadataSnapshots(md))
	{
		IcebergSnapshotInfo *snap = lfirst(lc);
		const char *id = IcebergMetadataSnapshotSummary(md, snap->snapshot_id,
														ICEBERG_EXPORT_RUN_ID_KEY);

		if (id != NULL)
			ids = lappend(ids, pstrdup(id));
	}
	return ids;
}

/* SyncListHas tells whether a list of strings holds s. */
static bool
SyncListHas(List *list, const char *s)
{
	ListCell   *lc;

	foreach(lc, list)
		if (strcmp((const char *) lfirst(lc), s) == 0)
			return true;
	return false;
}

/*
 * SyncSweep deletes, after a commit, the table's files that no snapshot of
 * md references.  Metadata JSON files are left to the metadata log.
 */
static void
SyncSweep(SyncRun *run, SyncTable *table, IcebergMetadata *md)
{
	List	   *live = SyncLiveRunIds(md);
	const char *dirs[2] = {"data", "metadata"};
	ListCell   *lc;

	for (int d = 0; d < 2; d++)
	{
		foreach(lc, StorageList(psprintf("%s/%s", table->location, dirs[d])))
		{
			const char *loc = lfirst(lc);
			char	   *id = SyncRunIdOf(loc);

			if (id != NULL && !SyncListHas(live, id))
				StorageDelete(loc);
		}
	}
}

/* SyncWriteManifests writes the run's manifest and the snapshot's manifest list. */
static char *
SyncWriteManifests(SyncRun *run, SyncTable *table, IcebergMetadata *md,
				   int64 snapshot_id, int64 parent_id)
{
	char	   *manifest_path = psprintf("%s/metadata/%s-m0.avro", table->location, run->run_id);
	char	   *list_path = psprintf("%s/metadata/snap-" INT64_FORMAT "-1-%s.avro",
									 table->location, snapshot_id, run->run_id);
	int			schema_id = IcebergMetadataCurrentSchemaId(md);
	char	   *schema_json = IcebergSchemaSerialize(IcebergMetadataCurrentSchema(md), schema_id);
	IcebergManifestFile manifest;
	StorageWriter *out;
	IcebergManifestWriter *mw;
	IcebergManifestListWriter *lw;

	out = StorageWriterOpen(manifest_path, true);
	mw = IcebergManifestWriterCreate(schema_json, schema_id, snapshot_id,
									 StorageWriterSink, out);
	IcebergManifestWriterAddFile(mw, &table->file);
	manifest.manifest_length = IcebergManifestWriterClose(mw, &manifest);
	manifest.manifest_path = manifest_path;
	if (!StorageWriterFinish(out))
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_FILE),
				 errmsg("manifest \"%s\" already exists", manifest_path)));

	out = StorageWriterOpen(list_path, true);
	lw = IcebergManifestListWriterCreate(snapshot_id,
										 parent_id == ICEBERG_NO_SNAPSHOT ? ICEBERG_UNASSIGNED_SEQ : parent_id,
										 IcebergMetadataLastSequenceNumber(md) + 1,
										 StorageWriterSink, out);
	IcebergManifestListWriterAdd(lw, &manifest);
	IcebergManifestListWriterClose(lw);
	if (!StorageWriterFinish(out))
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_FILE),
				 errmsg("manifest list \"%s\" already exists", list_path)));
	return list_path;
}

/* SyncSummaryCount reads a counter of a snapshot's summary (0 if absent). */
static int64
SyncSummaryCount(IcebergMetadata *md, int64 snapshot_id, const char *key)
{
	const char *v;

	if (snapshot_id == ICEBERG_NO_SNAPSHOT)
		return 0;
	v = IcebergMetadataSnapshotSummary(md, snapshot_id, key);
	return v ? strtoi64(v, NULL, 10) : 0;
}

/* SyncPropertyIsTrue tells whether a table property is set to true. */
static bool
SyncPropertyIsTrue(IcebergMetadata *md, const char *key)
{
	const char *v = IcebergMetadataGetProperty(md, key);

	return v != NULL && pg_strcasecmp(v, "true") == 0;
}

/* SyncCatalogId is the catalog identifier of a table of the run. */
static CatalogTableId
SyncCatalogId(SyncRun *run, SyncTable *table)
{
	CatalogTableId id = {run->catalog_name, run->namespace, table->target_table};

	return id;
}

/*
 * SyncTableCommit publishes a staged table and commits it as a new
 * snapshot that replaces the table's content (an overwrite).
 */
void
SyncTableCommit(SyncRun *run, SyncTable *table)
{
	CatalogTableId id = SyncCatalogId(run, table);
	char	   *current;
	IcebergMetadata *md = NULL;
	int64		now_ms = SyncNowMs();
	int64		parent_id;
	int64		snapshot_id;
	char	   *manifest_list;
	char	   *json;
	char	   *new_path;
	int			version;
	List	   *dropped_metadata;
	IcebergSnapshotSpec spec;
	IcebergProperty extra[1];
	bool		swapped;
	ListCell   *lc;

	SyncRunBegin();
	current = LocalCatalogLoad(&id);
	if (current != NULL)
		current = MemoryContextStrdup(run->context, current);
	SyncRunEnd();

	if (current != NULL)
		md = IcebergMetadataParse(StorageGet(current, NULL, false), current);

	/* a changed source schema needs a rebuild: never a silent mismatch */
	if (md != NULL && !run->full_refresh)
	{
		int			sid = IcebergMetadataCurrentSchemaId(md);
		char	   *have = IcebergSchemaSerialize(IcebergMetadataCurrentSchema(md), sid);
		char	   *want = IcebergSchemaSerialize(table->schema, sid);

		if (strcmp(have, want) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("the columns of \"%s.%s\" changed since table \"%s\" was last synced",
							table->source_schema, table->source_name, table->target_table),
					 errdetail("Exported schema: %s. Source now: %s.", have, want),
					 errhint("Run SELECT iceberg_export.iceberg_sync('%s', full_refresh => true) to rebuild the table.",
							 run->destination)));
	}
	if (md == NULL || run->full_refresh)
	{
		IcebergProperty props[2] = {
			{"write.metadata.delete-after-commit.enabled", "true"},
			{"write.parquet.compression-codec", ParquetCodecName(run->codec)}
		};
		IcebergMetadata *fresh = IcebergMetadataCreate(table->location, table->schema,
													   props, lengthof(props), now_ms);

		if (md != NULL)
		{
			IcebergMetadataSetSource(fresh, current);
			IcebergMetadataFree(md);
		}
		md = fresh;
	}

	/* publish: the staged file moves into the table's data/ */
	pgstat_report_activity(STATE_RUNNING, "iceberg_export: publishing");
	SyncProgressPhase(SYNC_PHASE_PUBLISHING);
	StorageMove(table->staged, table->data_file);
	SyncFaultPoint("after_publish");

	SyncProgressPhase(SYNC_PHASE_COMMITTING);
	parent_id = IcebergMetadataCurrentSnapshotId(md);
	snapshot_id = IcebergMetadataNewSnapshotId(md);
	manifest_list = SyncWriteManifests(run, table, md, snapshot_id, parent_id);

	memset(&spec, 0, sizeof(spec));
	spec.snapshot_id = snapshot_id;
	spec.timestamp_ms = now_ms;
	spec.operation = parent_id == ICEBERG_NO_SNAPSHOT ? "append" : "overwrite";
	spec.manifest_list = manifest_list;
	spec.added_data_files = 1;
	spec.added_records = table->rows;
	spec.added_files_size = table->bytes;
	spec.deleted_data_files = SyncSummaryCount(md, parent_id, "total-data-files");
	spec.deleted_records = SyncSummaryCount(md, parent_id, "total-records");
	spec.removed_files_size = SyncSummaryCount(md, parent_id, "total-files-size");
	extra[0].key = ICEBERG_EXPORT_RUN_ID_KEY;
	extra[0].value = run->run_id;
	spec.nextra = 1;
	spec.extra = extra;
	IcebergMetadataAddSnapshot(md, &spec);
	IcebergMetadataSetProperty(md, "iceberg-export.last-run-id", run->run_id);
	(void) IcebergMetadataExpireSnapshots(md, now_ms - (int64) run->retention_days * 86400000, 1);

	/* the new metadata file, created only if its name is free */
	version = current != NULL ? IcebergMetadataFileVersion(current) + 1 : 0;
	new_path = IcebergMetadataFilePath(table->location, version);
	dropped_metadata = IcebergMetadataLogPrevious(md);
	json = IcebergMetadataSerialize(md, true);
	if (!StoragePut(new_path, json, strlen(json), true))
		ereport(ERROR,
				(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
				 errmsg("metadata file \"%s\" already exists", new_path),
				 errdetail("Another writer committed to table \"%s\".", table->target_table)));
	SyncFaultPoint("before_commit");

	/* the swap, in its own transaction */
	pgstat_report_activity(STATE_RUNNING, "iceberg_export: committing");
	SyncRunBegin();
	swapped = LocalCatalogCommit(&id, current, new_path);
	SyncRunEnd();
	if (!swapped)
	{
		StorageDelete(new_path);
		ereport(ERROR,
				(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
				 errmsg("table \"%s\" was changed by another writer during the sync",
						table->target_table),
				 errhint("Run the sync again.")));
	}
	IcebergMetadataSetSource(md, new_path);
	LocalCatalogWriteVersionHint(table->location, new_path);
	table->snapshot_id = snapshot_id;

	/* only now may anything go: what no remaining snapshot references */
	pgstat_report_activity(STATE_RUNNING, "iceberg_export: maintenance");
	SyncProgressPhase(SYNC_PHASE_MAINTENANCE);
	SyncSweep(run, table, md);
	if (SyncPropertyIsTrue(md, "write.metadata.delete-after-commit.enabled"))
		foreach(lc, dropped_metadata)
			StorageDelete((const char *) lfirst(lc));
	IcebergMetadataFree(md);

	SyncRunRecordTable(run, table);
}

/*
 * SyncSweepStaging deletes, at the end of a run, every staging directory
 * <warehouse>/_write_ahead_staging/<table>/<run_id>/ whose run is not
 * running: leftovers of failed or killed runs, also of tables no longer
 * exported.  Runs of other destinations sharing the warehouse that are in
 * flight keep theirs.
 */
void
SyncSweepStaging(SyncRun *run)
{
	char	   *prefix = psprintf("%s/_write_ahead_staging/", run->warehouse);
	List	   *running = NIL;
	ListCell   *lc;
	MemoryContext caller = CurrentMemoryContext;

	SyncRunBegin();
	if (SPI_execute("SELECT run_id::text FROM iceberg_export.sync_runs WHERE status = 'running'",
					true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read running syncs");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		MemoryContext spi = MemoryContextSwitchTo(caller);

		running = lappend(running, pstrdup(SPI_getvalue(SPI_tuptable->vals[i],
														SPI_tuptable->tupdesc, 1)));
		MemoryContextSwitchTo(spi);
	}
	SyncRunEnd();

	foreach(lc, StorageListChildren(prefix))
	{
		char	   *table_prefix = psprintf("%s%s/", prefix, (const char *) lfirst(lc));
		ListCell   *rc;

		foreach(rc, StorageListChildren(table_prefix))
		{
			const char *run_id = lfirst(rc);

			if (strlen(run_id) == ICEBERG_UUID_LEN && !SyncListHas(running, run_id))
				StorageDeletePrefix(psprintf("%s%s", table_prefix, run_id));
		}
	}
}
