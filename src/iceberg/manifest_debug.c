/*-------------------------------------------------------------------------
 *
 * manifest_debug.c
 *	  ie_debug_export_manifest: a test-only entry point that writes a data
 *	  file, its manifest and a manifest list, for the interop tests.
 *
 * Not part of the extension's SQL API: test/interop/sql/debug_functions.sql
 * declares it in the test database only.  It runs a query, writes the rows
 * to <dir>/data.parquet with the row encoder and the Parquet writer, then
 * <dir>/manifest.avro with one entry for that file and <dir>/snap.avro
 * listing the manifest.  The table schema in the manifest's header is the
 * row encoder's Iceberg schema.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>

#include "access/htup_details.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "iceberg/manifest.h"
#include "iceberg/metadata.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "storage/storage.h"
#include "sync/sync.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(ie_debug_export_manifest);

/*
 * DebugWriteParquet runs query and writes its rows to location; fills in
 * the data file's size, row count and metrics, and the table schema JSON.
 */
static void
DebugWriteParquet(const char *query, const char *location, MemoryContext work,
				  IcebergDataFile *df, char **schema_json)
{
	SPIPlanPtr	plan;
	CachedPlanSource *source;
	SyncRowEncoder *encoder;
	ParquetWriterOptions options;
	ParquetWriter *writer;
	StorageWriter *out;
	MemoryContext oldcxt;
	ParquetColumnStats *stats;
	int			nleaves;

	plan = SPI_prepare(query, 0, NULL);
	if (plan == NULL)
		elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
	if (list_length(SPI_plan_get_plan_sources(plan)) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 errmsg("query must be exactly one statement")));
	source = linitial(SPI_plan_get_plan_sources(plan));
	if (source->resultDesc == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("query does not return rows")));
	encoder = SyncRowEncoderCreate(source->resultDesc, work);

	ParquetWriterOptionsInit(&options);
	options.created_by = ICEBERG_EXPORT_CREATED_BY;
	oldcxt = MemoryContextSwitchTo(work);
	out = StorageWriterOpen(location, false);
	writer = ParquetWriterCreate(SyncRowEncoderParquetSchema(encoder), &options,
								 StorageWriterSink, out);
	MemoryContextSwitchTo(oldcxt);
	(void) SyncStreamPlan(plan, encoder, writer, true, NULL, NULL);

	oldcxt = MemoryContextSwitchTo(work);
	df->file_size_in_bytes = ParquetWriterClose(writer);
	df->record_count = ParquetWriterRowCount(writer);
	StorageWriterFinish(out);

	nleaves = ParquetWriterLeafCount(writer);
	stats = palloc0(sizeof(ParquetColumnStats) * Max(nleaves, 1));
	for (int i = 0; i < nleaves; i++)
		ParquetWriterColumnStats(writer, i, &stats[i]);
	IcebergDataFileFromParquetStats(df, SyncRowEncoderIcebergSchema(encoder), stats, nleaves);
	*schema_json = IcebergSchemaSerialize(SyncRowEncoderIcebergSchema(encoder), 0);
	MemoryContextSwitchTo(oldcxt);
}

/*
 * ie_debug_export_manifest(query, dir, snapshot_id, sequence_number,
 * parent_snapshot_id, status) writes data.parquet, manifest.avro and
 * snap.avro in dir and returns their paths and sizes.
 */
Datum
ie_debug_export_manifest(PG_FUNCTION_ARGS)
{
	char	   *query;
	char	   *dir;
	int64		snapshot_id;
	int64		sequence_number;
	int64		parent_id;
	int32		status;
	char	   *data_path;
	char	   *manifest_path;
	char	   *list_path;
	char	   *data_location;
	char	   *manifest_location;
	char	   *list_location;
	char	   *schema_json = NULL;
	MemoryContext work;
	MemoryContext oldcxt;
	IcebergDataFile df;
	IcebergManifestEntry entry;
	IcebergManifestFile mf;
	IcebergManifestWriter *mw;
	IcebergManifestListWriter *lw;
	StorageWriter *out;
	int64		list_bytes;
	TupleDesc	tupdesc;
	Datum		values[7];
	bool		nulls[7] = {0};

	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("only superusers may use ie_debug_export_manifest")));
	for (int i = 0; i < 6; i++)
		if (i != 4 && PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("argument %d of ie_debug_export_manifest must not be null", i + 1)));
	query = text_to_cstring(PG_GETARG_TEXT_PP(0));
	dir = text_to_cstring(PG_GETARG_TEXT_PP(1));
	snapshot_id = PG_GETARG_INT64(2);
	sequence_number = PG_GETARG_INT64(3);
	parent_id = PG_ARGISNULL(4) ? ICEBERG_UNASSIGNED_SEQ : PG_GETARG_INT64(4);
	status = PG_GETARG_INT32(5);
	if (status < ICEBERG_ENTRY_EXISTING || status > ICEBERG_ENTRY_DELETED)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("status must be 0, 1 or 2")));
	if (!is_absolute_path(dir))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_NAME),
				 errmsg("relative path not allowed for ie_debug_export_manifest")));
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	data_path = psprintf("%s/data.parquet", dir);
	manifest_path = psprintf("%s/manifest.avro", dir);
	list_path = psprintf("%s/snap.avro", dir);
	data_location = psprintf("file://%s", data_path);
	manifest_location = psprintf("file://%s", manifest_path);
	list_location = psprintf("file://%s", list_path);

	work = AllocSetContextCreate(CurrentMemoryContext, "ie_debug_export_manifest",
								 ALLOCSET_DEFAULT_SIZES);
	memset(&df, 0, sizeof(df));
	df.content = ICEBERG_CONTENT_DATA;
	df.file_path = data_location;
	df.file_format = "PARQUET";
	df.sort_order_id = -1;

	SPI_connect();
	DebugWriteParquet(query, data_location, work, &df, &schema_json);
	SPI_finish();

	oldcxt = MemoryContextSwitchTo(work);
	out = StorageWriterOpen(manifest_location, false);
	mw = IcebergManifestWriterCreate(schema_json, 0, snapshot_id, StorageWriterSink, out);
	if (status == ICEBERG_ENTRY_ADDED)
		IcebergManifestWriterAddFile(mw, &df);
	else
	{
		/* a file added by the previous snapshot, kept or deleted now */
		entry.status = (IcebergEntryStatus) status;
		entry.snapshot_id = status == ICEBERG_ENTRY_EXISTING ? snapshot_id - 1 : snapshot_id;
		entry.sequence_number = Max(sequence_number - 1, 0);
		entry.file_sequence_number = Max(sequence_number - 1, 0);
		entry.data_file = &df;
		IcebergManifestWriterAddEntry(mw, &entry);
	}
	IcebergManifestWriterClose(mw, &mf);
	StorageWriterFinish(out);
	mf.manifest_path = manifest_location;

	out = StorageWriterOpen(list_location, false);
	lw = IcebergManifestListWriterCreate(snapshot_id, parent_id, sequence_number,
										 StorageWriterSink, out);
	IcebergManifestListWriterAdd(lw, &mf);
	list_bytes = IcebergManifestListWriterClose(lw);
	StorageWriterFinish(out);
	MemoryContextSwitchTo(oldcxt);

	values[0] = CStringGetTextDatum(data_path);
	values[1] = CStringGetTextDatum(manifest_path);
	values[2] = CStringGetTextDatum(list_path);
	values[3] = Int64GetDatum(df.file_size_in_bytes);
	values[4] = Int64GetDatum(mf.manifest_length);
	values[5] = Int64GetDatum(list_bytes);
	values[6] = Int64GetDatum(df.record_count);
	MemoryContextDelete(work);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls)));
}
