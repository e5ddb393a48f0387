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
 * row encoder's Iceberg schema, serialized here.
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
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "sync/sync.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/memutils.h"

/* An output file, as the sink of the Parquet and Avro writers. */
typedef struct DebugFile
{
	FILE	   *file;
	const char *path;
} DebugFile;

/* A DestReceiver that encodes every tuple it receives. */
typedef struct DebugReceiver
{
	DestReceiver pub;
	SyncRowEncoder *encoder;
	ParquetWriter *writer;
	MemoryContext batch_context;
	int64		rows;
} DebugReceiver;

PG_FUNCTION_INFO_V1(ie_debug_export_manifest);

/* DebugSinkWrite appends bytes to an output file. */
static void
DebugSinkWrite(void *arg, const void *data, size_t len)
{
	DebugFile  *out = (DebugFile *) arg;

	errno = 0;
	if (fwrite(data, 1, len, out->file) != len)
	{
		if (errno == 0)
			errno = ENOSPC;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write to file \"%s\": %m", out->path)));
	}
}

/*
 * DebugOpen opens an output file, readable by others like COPY TO's;
 * AllocateFile closes it on abort.
 */
static void
DebugOpen(DebugFile *out, const char *path)
{
	mode_t		oumask = umask(S_IWGRP | S_IWOTH);

	out->path = path;
	out->file = AllocateFile(path, PG_BINARY_W);
	umask(oumask);
	if (out->file == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create file \"%s\": %m", path)));
}

/* DebugClose closes an output file. */
static void
DebugClose(DebugFile *out)
{
	if (FreeFile(out->file) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not close file \"%s\": %m", out->path)));
	out->file = NULL;
}

/* DebugReceiveSlot writes one tuple. */
static bool
DebugReceiveSlot(TupleTableSlot *slot, DestReceiver *self)
{
	DebugReceiver *receiver = (DebugReceiver *) self;
	MemoryContext oldcxt = MemoryContextSwitchTo(receiver->batch_context);

	SyncRowEncoderWriteSlot(receiver->encoder, receiver->writer, slot);
	MemoryContextSwitchTo(oldcxt);
	if (++receiver->rows % 1000 == 0)
		MemoryContextReset(receiver->batch_context);
	return true;
}

/* DebugStartup checks that the executor's rows are the planned ones. */
static void
DebugStartup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
	SyncRowEncoderCheckTupleDesc(((DebugReceiver *) self)->encoder, typeinfo);
}

/* DebugNoop is the receiver's shutdown and destroy callback. */
static void
DebugNoop(DestReceiver *self)
{
}

/* DebugAppendType appends the schema JSON of an Iceberg type. */
static void
DebugAppendType(StringInfo buf, const IcebergType *type)
{
	switch (type->kind)
	{
		case ICEBERG_TYPE_STRUCT:
			appendStringInfoString(buf, "{\"type\":\"struct\",\"fields\":[");
			for (int i = 0; i < type->nfields; i++)
			{
				const IcebergField *f = &type->fields[i];

				appendStringInfo(buf, "%s{\"id\":%d,\"name\":", i > 0 ? "," : "", f->id);
				escape_json(buf, f->name);
				appendStringInfo(buf, ",\"required\":%s,\"type\":", f->required ? "true" : "false");
				DebugAppendType(buf, f->type);
				appendStringInfoChar(buf, '}');
			}
			appendStringInfoString(buf, "]}");
			break;
		case ICEBERG_TYPE_LIST:
			appendStringInfo(buf, "{\"type\":\"list\",\"element-id\":%d,\"element\":",
							 type->element_id);
			DebugAppendType(buf, type->element);
			appendStringInfo(buf, ",\"element-required\":%s}",
							 type->element_required ? "true" : "false");
			break;
		case ICEBERG_TYPE_MAP:
			appendStringInfo(buf, "{\"type\":\"map\",\"key-id\":%d,\"key\":", type->key_id);
			DebugAppendType(buf, type->key);
			appendStringInfo(buf, ",\"value-id\":%d,\"value\":", type->element_id);
			DebugAppendType(buf, type->element);
			appendStringInfo(buf, ",\"value-required\":%s}",
							 type->element_required ? "true" : "false");
			break;
		default:
			escape_json(buf, IcebergTypeToString(type));
			break;
	}
}

/* DebugSchemaJson is the table schema JSON (schema-id 0) of a struct type. */
static char *
DebugSchemaJson(const IcebergType *schema)
{
	StringInfoData buf;

	initStringInfo(&buf);
	DebugAppendType(&buf, schema);
	/* {"type":"struct", ... -> {"type":"struct","schema-id":0, ... */
	return psprintf("{\"type\":\"struct\",\"schema-id\":0,%s",
					buf.data + strlen("{\"type\":\"struct\","));
}

/*
 * DebugWriteParquet runs query and writes its rows to path; fills in the
 * data file's size, row count and metrics, and the table schema JSON.
 */
static void
DebugWriteParquet(const char *query, const char *path, MemoryContext work,
				  IcebergDataFile *df, char **schema_json)
{
	SPIPlanPtr	plan;
	CachedPlanSource *source;
	SyncRowEncoder *encoder;
	ParquetWriterOptions options;
	DebugReceiver receiver;
	SPIExecuteOptions execopts;
	DebugFile	out;
	MemoryContext oldcxt;
	ParquetColumnStats *stats;
	int			nleaves;
	int			ret;

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

	DebugOpen(&out, path);
	ParquetWriterOptionsInit(&options);
	options.created_by = ICEBERG_EXPORT_CREATED_BY;
	oldcxt = MemoryContextSwitchTo(work);
	receiver.writer = ParquetWriterCreate(SyncRowEncoderParquetSchema(encoder),
										  &options, DebugSinkWrite, &out);
	MemoryContextSwitchTo(oldcxt);

	memset(&receiver.pub, 0, sizeof(receiver.pub));
	receiver.pub.receiveSlot = DebugReceiveSlot;
	receiver.pub.rStartup = DebugStartup;
	receiver.pub.rShutdown = DebugNoop;
	receiver.pub.rDestroy = DebugNoop;
	receiver.pub.mydest = DestNone;
	receiver.encoder = encoder;
	receiver.batch_context = AllocSetContextCreate(work, "debug batch", ALLOCSET_DEFAULT_SIZES);
	receiver.rows = 0;

	memset(&execopts, 0, sizeof(execopts));
	execopts.read_only = true;
	execopts.dest = &receiver.pub;
	ret = SPI_execute_plan_extended(plan, &execopts);
	if (ret < 0)
		elog(ERROR, "SPI_execute_plan_extended failed: %s", SPI_result_code_string(ret));

	oldcxt = MemoryContextSwitchTo(work);
	df->file_size_in_bytes = ParquetWriterClose(receiver.writer);
	df->record_count = ParquetWriterRowCount(receiver.writer);
	DebugClose(&out);

	nleaves = ParquetWriterLeafCount(receiver.writer);
	stats = palloc0(sizeof(ParquetColumnStats) * Max(nleaves, 1));
	for (int i = 0; i < nleaves; i++)
		ParquetWriterColumnStats(receiver.writer, i, &stats[i]);
	IcebergDataFileFromParquetStats(df, SyncRowEncoderIcebergSchema(encoder), stats, nleaves);
	*schema_json = DebugSchemaJson(SyncRowEncoderIcebergSchema(encoder));
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
	char	   *schema_json = NULL;
	MemoryContext work;
	MemoryContext oldcxt;
	IcebergDataFile df;
	IcebergManifestEntry entry;
	IcebergManifestFile mf;
	IcebergManifestWriter *mw;
	IcebergManifestListWriter *lw;
	DebugFile	out;
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

	work = AllocSetContextCreate(CurrentMemoryContext, "ie_debug_export_manifest",
								 ALLOCSET_DEFAULT_SIZES);
	memset(&df, 0, sizeof(df));
	df.content = ICEBERG_CONTENT_DATA;
	df.file_path = psprintf("file://%s", data_path);
	df.file_format = "PARQUET";
	df.sort_order_id = -1;

	SPI_connect();
	DebugWriteParquet(query, data_path, work, &df, &schema_json);
	SPI_finish();

	oldcxt = MemoryContextSwitchTo(work);
	DebugOpen(&out, manifest_path);
	mw = IcebergManifestWriterCreate(schema_json, 0, snapshot_id, DebugSinkWrite, &out);
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
	DebugClose(&out);
	mf.manifest_path = psprintf("file://%s", manifest_path);

	DebugOpen(&out, list_path);
	lw = IcebergManifestListWriterCreate(snapshot_id, parent_id, sequence_number,
										 DebugSinkWrite, &out);
	IcebergManifestListWriterAdd(lw, &mf);
	list_bytes = IcebergManifestListWriterClose(lw);
	DebugClose(&out);
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
