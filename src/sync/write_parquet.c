/*-------------------------------------------------------------------------
 *
 * write_parquet.c
 *	  iceberg_export.write_parquet(query, path, compression, row_group_bytes):
 *	  runs a query and writes its result to a Parquet file on the server.
 *
 * The query streams through SPI straight into the row encoder
 * (query_stream.c), so nothing is materialized beyond the Parquet
 * writer's row group.  The file is written under a temporary name
 * in the target's directory, synced, and renamed over the target only when
 * complete; on any error the temporary file is removed, so the target path
 * never holds a partial file.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>
#include <unistd.h>

#include "catalog/pg_authid.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "sync/sync.h"
#include "tcop/cmdtag.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/plancache.h"
#include "utils/tuplestore.h"

/* Smallest row group target we accept. */
#define WRITE_PARQUET_MIN_ROW_GROUP_BYTES (64 * 1024)

/* stdio buffer of the output file */
#define WRITE_PARQUET_FILE_BUFFER (1024 * 1024)

/* The output file, as the Parquet writer's sink. */
typedef struct WriteParquetFile
{
	FILE	   *file;
	const char *path;			/* the temporary file */
} WriteParquetFile;

PG_FUNCTION_INFO_V1(write_parquet);

/* WriteParquetSinkWrite appends bytes to the output file. */
static void
WriteParquetSinkWrite(void *arg, const void *data, size_t len)
{
	WriteParquetFile *out = (WriteParquetFile *) arg;

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
 * WriteParquetCheckPrivileges allows what COPY TO a file allows: superusers
 * and roles with the privileges of pg_write_server_files.
 */
static void
WriteParquetCheckPrivileges(void)
{
	if (!superuser() && !has_privs_of_role(GetUserId(), ROLE_PG_WRITE_SERVER_FILES))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to write a file on the server"),
				 errhint("Only superusers and roles with privileges of the \"pg_write_server_files\" role may use write_parquet.")));
}

/*
 * WriteParquetPrepare prepares the query and checks that it is one
 * read-only SELECT.
 */
static SPIPlanPtr
WriteParquetPrepare(const char *query, CachedPlanSource **source)
{
	SPIPlanPtr	plan = SPI_prepare(query, 0, NULL);
	List	   *sources;
	CachedPlanSource *src;
	ListCell   *lc;

	if (plan == NULL)
		elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));

	sources = SPI_plan_get_plan_sources(plan);
	if (list_length(sources) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 errmsg("query must be exactly one statement"),
				 errdetail("The query has %d statements.", list_length(sources))));
	src = linitial(sources);

	if (src->resultDesc == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("query does not return rows"),
				 errdetail("The statement is %s.", GetCommandTagName(src->commandTag)),
				 errhint("Give a SELECT, VALUES or TABLE query.")));
	if (src->commandTag != CMDTAG_SELECT)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("query must be a SELECT"),
				 errdetail("The statement is %s.", GetCommandTagName(src->commandTag)),
				 errhint("Give a SELECT, VALUES or TABLE query.")));
	foreach(lc, src->query_list)
	{
		Query	   *q = lfirst_node(Query, lc);

		if (q->commandType != CMD_SELECT || q->hasModifyingCTE || q->rowMarks != NIL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("query must be read-only"),
					 errdetail("Data-modifying statements in WITH and FOR UPDATE/SHARE are not allowed.")));
	}

	*source = src;
	return plan;
}

/* write_parquet runs a query and writes its result to a Parquet file. */
Datum
write_parquet(PG_FUNCTION_ARGS)
{
	static const char *const argnames[] = {"query", "path", "compression", "row_group_bytes"};
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *query;
	char	   *path;
	char	   *compression;
	int64		row_group_bytes;
	ParquetCodec codec;
	const char *base;
	char	   *tmppath;
	MemoryContext work;
	MemoryContext oldcxt;
	SPIPlanPtr	plan;
	CachedPlanSource *source;
	SyncRowEncoder *encoder;
	ParquetWriterOptions options;
	WriteParquetFile out;
	ParquetWriter *writer;
	int64		rows;
	FILE	   *volatile file = NULL;
	volatile bool created = false;
	int64		bytes = 0;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	for (int i = 0; i < (int) lengthof(argnames); i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("argument \"%s\" of write_parquet must not be null", argnames[i])));
	query = text_to_cstring(PG_GETARG_TEXT_PP(0));
	path = text_to_cstring(PG_GETARG_TEXT_PP(1));
	compression = text_to_cstring(PG_GETARG_TEXT_PP(2));
	row_group_bytes = PG_GETARG_INT64(3);

	InitMaterializedSRF(fcinfo, 0);
	WriteParquetCheckPrivileges();

	if (!is_absolute_path(path))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_NAME),
				 errmsg("relative path not allowed for write_parquet"),
				 errhint("Give an absolute path on the database server.")));
	base = last_dir_separator(path) + 1;
	if (*base == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("path \"%s\" does not name a file", path)));
	if (!ParquetCodecFromName(compression, &codec))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unrecognized compression \"%s\"", compression),
				 errhint("Valid compressions are zstd, snappy, gzip and none.")));
	if (row_group_bytes < WRITE_PARQUET_MIN_ROW_GROUP_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("row_group_bytes must be at least %d", WRITE_PARQUET_MIN_ROW_GROUP_BYTES),
				 errdetail("The value given is " INT64_FORMAT ".", row_group_bytes)));
	/* <dir>/.<basename>.<pid>.tmp, in the same directory so rename is atomic */
	tmppath = psprintf("%.*s.%s.%d.tmp", (int) (base - path), path, base, MyProcPid);

	/* outlives SPI_finish, which deletes SPI's own contexts */
	work = AllocSetContextCreate(CurrentMemoryContext, "write_parquet",
								 ALLOCSET_DEFAULT_SIZES);

	SPI_connect();
	plan = WriteParquetPrepare(query, &source);
	encoder = SyncRowEncoderCreate(source->resultDesc, work);

	PG_TRY();
	{
		mode_t		oumask;
		int			ret;

		/* like COPY TO a file: readable by others, never group/other writable */
		oumask = umask(S_IWGRP | S_IWOTH);
		PG_TRY();
		{
			file = AllocateFile(tmppath, PG_BINARY_W);
		}
		PG_FINALLY();
		{
			umask(oumask);
		}
		PG_END_TRY();
		if (file == NULL)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not create file \"%s\": %m", path),
					 errdetail("The file is written as \"%s\" and renamed when complete.",
							   tmppath)));
		created = true;
		setvbuf(file, MemoryContextAlloc(work, WRITE_PARQUET_FILE_BUFFER), _IOFBF,
				WRITE_PARQUET_FILE_BUFFER);
		out.file = file;
		out.path = tmppath;

		ParquetWriterOptionsInit(&options);
		options.codec = codec;
		options.row_group_bytes = row_group_bytes;
		options.created_by = ICEBERG_EXPORT_CREATED_BY;
		oldcxt = MemoryContextSwitchTo(work);
		writer = ParquetWriterCreate(SyncRowEncoderParquetSchema(encoder),
									 &options, WriteParquetSinkWrite, &out);
		rows = SyncStreamPlan(plan, encoder, writer, true, NULL, NULL);
		bytes = ParquetWriterClose(writer);
		MemoryContextSwitchTo(oldcxt);
		if (ParquetWriterRowCount(writer) != rows)
			elog(ERROR, "parquet writer has " INT64_FORMAT " rows, expected " INT64_FORMAT,
				 ParquetWriterRowCount(writer), rows);

		if (fflush(file) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not write to file \"%s\": %m", tmppath)));
		/* an export file is not a relation: a failed fsync is an ERROR, not a PANIC */
		if (pg_fsync(fileno(file)) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not fsync file \"%s\": %m", tmppath)));
		ret = FreeFile(file);
		file = NULL;
		if (ret != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not close file \"%s\": %m", tmppath)));

		/* fsyncs the file and the directory around the rename; errors at ERROR */
		durable_rename(tmppath, path, ERROR);
		created = false;
	}
	PG_CATCH();
	{
		if (file != NULL)
			FreeFile(file);
		if (created)
			unlink(tmppath);
		PG_RE_THROW();
	}
	PG_END_TRY();

	values[0] = Int64GetDatum(rows);
	values[1] = Int64GetDatum(bytes);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);

	SPI_finish();
	MemoryContextDelete(work);
	return (Datum) 0;
}
