/*-------------------------------------------------------------------------
 *
 * writer.c
 *	  The Parquet file writer: rows in, row groups and a footer out.
 *
 * Rows are shredded into leaf columns with Dremel levels as they arrive.
 * Every leaf entry is given the current repetition level (0 at a row's
 * start, the list's level for its second and later items) and the
 * definition level of the deepest node that is present.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "parquet/parquet_int.h"
#include "utils/memutils.h"

#ifdef WORDS_BIGENDIAN
#error "the parquet writer assumes a little-endian host"
#endif

/*
 * The row group's buffered size is checked every this many rows (a power
 * of two), so a row group can overshoot its target by that many rows.
 */
#define PQ_SIZE_CHECK_ROWS 64

/* Levels are stored in one byte each. */
#define PQ_MAX_LEVEL 255

/* ParquetWriterOptionsInit fills in the defaults. */
void
ParquetWriterOptionsInit(ParquetWriterOptions *options)
{
	options->codec = PARQUET_CODEC_ZSTD;
	options->compression_level = 0;
	options->row_group_bytes = INT64CONST(128) * 1024 * 1024;
	options->page_bytes = 1024 * 1024;
	options->dictionary_bytes = 2 * 1024 * 1024;
	options->created_by = "iceberg_export";
}

/* ParquetCodecFromName parses a codec name, case-insensitively. */
bool
ParquetCodecFromName(const char *name, ParquetCodec *codec)
{
	if (pg_strcasecmp(name, "zstd") == 0)
		*codec = PARQUET_CODEC_ZSTD;
	else if (pg_strcasecmp(name, "snappy") == 0)
		*codec = PARQUET_CODEC_SNAPPY;
	else if (pg_strcasecmp(name, "gzip") == 0)
		*codec = PARQUET_CODEC_GZIP;
	else if (pg_strcasecmp(name, "none") == 0 ||
			 pg_strcasecmp(name, "uncompressed") == 0)
		*codec = PARQUET_CODEC_UNCOMPRESSED;
	else
		return false;
	return true;
}

/* ParquetCodecName is the name of a codec. */
const char *
ParquetCodecName(ParquetCodec codec)
{
	switch (codec)
	{
		case PARQUET_CODEC_ZSTD:
			return "zstd";
		case PARQUET_CODEC_SNAPPY:
			return "snappy";
		case PARQUET_CODEC_GZIP:
			return "gzip";
		case PARQUET_CODEC_UNCOMPRESSED:
			return "none";
	}
	return "unknown";
}

/* PqSinkWrite hands bytes to the sink and advances the file position. */
void
PqSinkWrite(ParquetWriter *writer, const void *data, size_t len)
{
	if (len == 0)
		return;
	writer->sink(writer->sink_arg, data, len);
	writer->file_pos += len;
}

/* PqComputeLevels assigns levels and leaf numbers to a subtree. */
static void
PqComputeLevels(ParquetWriter *writer, ParquetNodeId id, int parent_def,
				int parent_rep, int *nleaves)
{
	ParquetNode *node = &writer->schema->nodes[id];
	int			child_def;
	int			child_rep;

	node->def_level = parent_def + ((id != PARQUET_ROOT_NODE && !node->required) ? 1 : 0);
	node->rep_level = parent_rep;
	node->first_leaf = *nleaves;
	child_def = node->def_level;
	child_rep = parent_rep;

	if (node->type == PARQUET_TYPE_LIST)
	{
		if (node->nchildren != 1)
			elog(ERROR, "parquet list \"%s\" has no element", node->name);
		/* the repeated "list" group adds one of each */
		child_def++;
		child_rep++;
	}
	else if (node->type == PARQUET_TYPE_STRUCT && node->nchildren == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("parquet group \"%s\" has no fields", node->name),
				 errhint("Parquet cannot store a struct without fields.")));

	if (child_def > PQ_MAX_LEVEL || child_rep > PQ_MAX_LEVEL)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("parquet schema is nested too deeply at \"%s\"", node->name)));

	if (node->physical >= 0)
		node->leaf = (*nleaves)++;
	for (int i = 0; i < node->nchildren; i++)
		PqComputeLevels(writer, node->children[i], child_def, child_rep, nleaves);
	node->nleaves = *nleaves - node->first_leaf;
}

/* ParquetWriterCreate opens a writer and writes the leading magic. */
ParquetWriter *
ParquetWriterCreate(ParquetSchema *schema, const ParquetWriterOptions *options,
					ParquetSinkWrite sink, void *sink_arg)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "parquet writer",
											  ALLOCSET_DEFAULT_SIZES);
	ParquetWriter *writer = MemoryContextAllocZero(cxt, sizeof(ParquetWriter));
	int			nleaves = 0;

	if (options->created_by == NULL || options->created_by[0] == '\0')
		elog(ERROR, "parquet writer needs a created_by string");
	if (options->row_group_bytes <= 0 || options->page_bytes <= 0)
		elog(ERROR, "invalid parquet writer sizes");

	writer->context = cxt;
	writer->schema = schema;
	writer->options = *options;
	writer->options.created_by = MemoryContextStrdup(cxt, options->created_by);
	writer->sink = sink;
	writer->sink_arg = sink_arg;

	PqComputeLevels(writer, PARQUET_ROOT_NODE, 0, 0, &nleaves);
	if (nleaves == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a parquet file needs at least one column")));

	writer->ncolumns = nleaves;
	writer->columns = MemoryContextAllocZero(cxt, sizeof(PqColumn) * nleaves);
	for (int i = 0; i < schema->nnodes; i++)
		if (schema->nodes[i].leaf >= 0)
			PqColumnInit(writer, &writer->columns[schema->nodes[i].leaf], &schema->nodes[i]);

	writer->lists_cap = 8;
	writer->lists = MemoryContextAlloc(cxt, sizeof(PqListFrame) * writer->lists_cap);
	PqBufInit(&writer->row_groups, cxt, 1024);
	PqBufInit(&writer->page_body, cxt, 64 * 1024);
	PqBufInit(&writer->page_compressed, cxt, 64 * 1024);
	PqBufInit(&writer->page_header, cxt, 64);
	PqCompressorInit(writer);

	PqSinkWrite(writer, "PAR1", 4);
	return writer;
}

/* PqNode returns node id of the writer's schema, checking the id. */
static inline ParquetNode *
PqNode(ParquetWriter *writer, ParquetNodeId id)
{
	if (unlikely(id <= PARQUET_ROOT_NODE || id >= writer->schema->nnodes))
		elog(ERROR, "invalid parquet node %d", id);
	return &writer->schema->nodes[id];
}

/* PqLeafEntry adds the level entry of a present value and returns the column. */
static inline PqColumn *
PqLeafEntry(ParquetWriter *writer, ParquetNodeId id, int physical)
{
	ParquetNode *node = PqNode(writer, id);
	PqColumn   *col;

	if (unlikely(node->physical != physical))
		elog(ERROR, "wrong value type for parquet column \"%s\"", node->name);
	col = &writer->columns[node->leaf];
	PqColumnAddLevels(col, writer->ctx_rep, col->max_def);
	return col;
}

/* ParquetRowBegin starts a row. */
void
ParquetRowBegin(ParquetWriter *writer)
{
	if (writer->in_row || writer->closed)
		elog(ERROR, "parquet row begun twice or after close");
	writer->in_row = true;
	writer->ctx_rep = 0;
	writer->nlists = 0;
}

/* PqFlushRowGroup writes the buffered row group to the sink. */
static void
PqFlushRowGroup(ParquetWriter *writer)
{
	ThriftWriter tw;
	int64		start = writer->file_pos;
	int64		uncompressed = 0;
	int64		compressed = 0;

	if (writer->rows_in_group == 0)
		return;

	for (int i = 0; i < writer->ncolumns; i++)
		if (writer->columns[i].rows_in_group != writer->rows_in_group)
			elog(ERROR, "parquet column \"%s\" has " INT64_FORMAT " rows, expected " INT64_FORMAT,
				 writer->columns[i].path_dotted, writer->columns[i].rows_in_group,
				 writer->rows_in_group);

	/* RowGroup, kept serialized until the footer */
	ThriftInit(&tw, &writer->row_groups);
	ThriftFieldListBegin(&tw, 1, THRIFT_STRUCT, writer->ncolumns);
	for (int i = 0; i < writer->ncolumns; i++)
		PqColumnFlushChunk(writer, &writer->columns[i], &tw, &uncompressed, &compressed);
	ThriftFieldI64(&tw, 2, uncompressed);
	ThriftFieldI64(&tw, 3, writer->rows_in_group);
	ThriftFieldI64(&tw, 5, start);
	ThriftFieldI64(&tw, 6, compressed);
	ThriftStructEnd(&tw);

	writer->nrow_groups++;
	writer->rows_in_group = 0;
}

/* ParquetRowEnd ends a row; pages and row groups are flushed at row ends. */
void
ParquetRowEnd(ParquetWriter *writer)
{
	bool		page_done = false;

	if (!writer->in_row || writer->nlists != 0)
		elog(ERROR, "parquet row ended without a matching begin, or inside a list");
	writer->in_row = false;
	writer->rows_in_group++;
	writer->total_rows++;

	for (int i = 0; i < writer->ncolumns; i++)
	{
		PqColumn   *col = &writer->columns[i];

		if (col->nlevels >= PQ_PAGE_MAX_ENTRIES ||
			col->values.len >= (size_t) writer->options.page_bytes ||
			(col->use_dict &&
			 col->dict.plain.len > (size_t) writer->options.dictionary_bytes))
		{
			PqColumnCheckLimits(writer, col);
			page_done = true;
		}
	}

	/*
	 * The row group grows mostly when pages are finished; otherwise looking
	 * at its size every few rows is enough.
	 */
	if ((page_done || (writer->rows_in_group & (PQ_SIZE_CHECK_ROWS - 1)) == 0) &&
		ParquetWriterBufferedBytes(writer) >= writer->options.row_group_bytes)
		PqFlushRowGroup(writer);
}

/* ParquetWriteNull writes a null for an optional node and everything below it. */
void
ParquetWriteNull(ParquetWriter *writer, ParquetNodeId id)
{
	ParquetNode *node = PqNode(writer, id);

	if (node->required)
		ereport(ERROR,
				(errcode(ERRCODE_NOT_NULL_VIOLATION),
				 errmsg("null value in required parquet column \"%s\"", node->name)));
	for (int i = node->first_leaf; i < node->first_leaf + node->nleaves; i++)
	{
		PqColumn   *col = &writer->columns[i];

		PqColumnAddLevels(col, writer->ctx_rep, node->def_level - 1);
		col->chunk_stats.null_count++;
	}
}

/* ParquetWriteBool writes a boolean. */
void
ParquetWriteBool(ParquetWriter *writer, ParquetNodeId node, bool value)
{
	PqColumn   *col = PqLeafEntry(writer, node, PQ_PHYS_BOOLEAN);
	uint8		b = value ? 1 : 0;

	PqColumnAddValue(writer, col, &b, 1);
}

/* ParquetWriteInt32 writes an INT32-backed value. */
void
ParquetWriteInt32(ParquetWriter *writer, ParquetNodeId node, int32 value)
{
	PqColumn   *col = PqLeafEntry(writer, node, PQ_PHYS_INT32);

	PqColumnAddValue(writer, col, (const uint8 *) &value, 4);
}

/* ParquetWriteInt64 writes an INT64-backed value. */
void
ParquetWriteInt64(ParquetWriter *writer, ParquetNodeId node, int64 value)
{
	PqColumn   *col = PqLeafEntry(writer, node, PQ_PHYS_INT64);

	PqColumnAddValue(writer, col, (const uint8 *) &value, 8);
}

/* ParquetWriteFloat writes a float. */
void
ParquetWriteFloat(ParquetWriter *writer, ParquetNodeId node, float value)
{
	PqColumn   *col = PqLeafEntry(writer, node, PQ_PHYS_FLOAT);

	PqColumnAddValue(writer, col, (const uint8 *) &value, 4);
}

/* ParquetWriteDouble writes a double. */
void
ParquetWriteDouble(ParquetWriter *writer, ParquetNodeId node, double value)
{
	PqColumn   *col = PqLeafEntry(writer, node, PQ_PHYS_DOUBLE);

	PqColumnAddValue(writer, col, (const uint8 *) &value, 8);
}

/* ParquetWriteBytes writes a BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY value. */
void
ParquetWriteBytes(ParquetWriter *writer, ParquetNodeId id, const void *data, int32 len)
{
	ParquetNode *node = PqNode(writer, id);
	PqColumn   *col;

	if (node->physical == PQ_PHYS_FLBA)
	{
		if (len != node->type_length)
			elog(ERROR, "parquet column \"%s\" takes %d bytes, got %d",
				 node->name, node->type_length, len);
	}
	else if (node->physical != PQ_PHYS_BYTE_ARRAY)
		elog(ERROR, "wrong value type for parquet column \"%s\"", node->name);
	col = &writer->columns[node->leaf];
	PqColumnAddLevels(col, writer->ctx_rep, col->max_def);
	PqColumnAddValue(writer, col, data, len);
}

/* PqPow10 is 10^n as an int128, for 0 <= n <= 38. */
static int128
PqPow10(int n)
{
	static int128 table[PARQUET_MAX_DECIMAL_PRECISION + 1];

	if (unlikely(table[0] == 0))
	{
		table[0] = 1;
		for (int i = 1; i <= PARQUET_MAX_DECIMAL_PRECISION; i++)
			table[i] = table[i - 1] * 10;
	}
	return table[n];
}

/* ParquetWriteDecimal writes a decimal from its unscaled value. */
void
ParquetWriteDecimal(ParquetWriter *writer, ParquetNodeId id, int128 unscaled)
{
	ParquetNode *node = PqNode(writer, id);
	int128		limit;

	if (node->type != PARQUET_TYPE_DECIMAL)
		elog(ERROR, "parquet column \"%s\" is not a decimal", node->name);
	limit = PqPow10(node->precision);
	if (unscaled >= limit || unscaled <= -limit)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("value does not fit in decimal(%d,%d) column \"%s\"",
						node->precision, node->scale, node->name)));

	if (node->physical == PQ_PHYS_INT32)
		ParquetWriteInt32(writer, id, (int32) unscaled);
	else if (node->physical == PQ_PHYS_INT64)
		ParquetWriteInt64(writer, id, (int64) unscaled);
	else
	{
		uint8		be[16];
		int			len = node->type_length;

		/* big-endian two's complement, sign-extended to the FLBA length */
		for (int i = 0; i < len; i++)
			be[len - 1 - i] = (uint8) (unscaled >> (8 * i));
		ParquetWriteBytes(writer, id, be, len);
	}
}

/* ParquetListBegin opens a list value of list node id. */
void
ParquetListBegin(ParquetWriter *writer, ParquetNodeId id)
{
	ParquetNode *node = PqNode(writer, id);
	PqListFrame *frame;

	if (node->type != PARQUET_TYPE_LIST)
		elog(ERROR, "parquet column \"%s\" is not a list", node->name);
	if (writer->nlists >= writer->lists_cap)
	{
		writer->lists_cap *= 2;
		writer->lists = repalloc(writer->lists, sizeof(PqListFrame) * writer->lists_cap);
	}
	frame = &writer->lists[writer->nlists++];
	frame->node = node;
	frame->nitems = 0;
	frame->saved_rep = writer->ctx_rep;
}

/* ParquetListNextItem starts the next element of the innermost open list. */
void
ParquetListNextItem(ParquetWriter *writer)
{
	PqListFrame *frame;

	if (writer->nlists == 0)
		elog(ERROR, "parquet list item outside a list");
	frame = &writer->lists[writer->nlists - 1];
	frame->nitems++;
	/* the first item continues the enclosing level; later ones repeat this list */
	writer->ctx_rep = frame->nitems == 1 ? frame->saved_rep : frame->node->rep_level + 1;
}

/* ParquetListEnd closes the innermost open list. */
void
ParquetListEnd(ParquetWriter *writer)
{
	PqListFrame *frame;
	ParquetNode *node;

	if (writer->nlists == 0)
		elog(ERROR, "parquet list end outside a list");
	frame = &writer->lists[writer->nlists - 1];
	node = frame->node;
	if (frame->nitems == 0)
	{
		/* an empty list: defined at the list's level, no repeated entry */
		for (int i = node->first_leaf; i < node->first_leaf + node->nleaves; i++)
		{
			PqColumn   *col = &writer->columns[i];

			PqColumnAddLevels(col, frame->saved_rep, node->def_level);
			col->chunk_stats.null_count++;
		}
	}
	writer->ctx_rep = frame->saved_rep;
	writer->nlists--;
}

/* ParquetWriterBufferedBytes is the size of the row group being built. */
int64
ParquetWriterBufferedBytes(ParquetWriter *writer)
{
	size_t		buffered = 0;

	for (int i = 0; i < writer->ncolumns; i++)
		buffered += PqColumnBufferedBytes(&writer->columns[i]);
	return (int64) buffered;
}

/* ParquetWriterBytesWritten is what the sink has received so far. */
int64
ParquetWriterBytesWritten(ParquetWriter *writer)
{
	return writer->file_pos;
}

/* ParquetWriterClose flushes the last row group and writes the footer. */
int64
ParquetWriterClose(ParquetWriter *writer)
{
	PqBuf		footer;
	ThriftWriter tw;
	uint8		tail[8];
	uint32		len;

	if (writer->in_row)
		elog(ERROR, "parquet writer closed inside a row");
	if (writer->closed)
		return writer->file_pos;
	PqFlushRowGroup(writer);

	PqBufInit(&footer, writer->context, 4096 + writer->row_groups.len);
	ThriftInit(&tw, &footer);
	ThriftFieldI32(&tw, 1, 1);	/* version */
	PqWriteSchemaElements(&tw, writer->schema);
	ThriftFieldI64(&tw, 3, writer->total_rows);
	ThriftFieldListBegin(&tw, 4, THRIFT_STRUCT, writer->nrow_groups);
	PqBufAppend(&footer, writer->row_groups.data, writer->row_groups.len);
	ThriftFieldString(&tw, 6, writer->options.created_by);
	ThriftFieldListBegin(&tw, 7, THRIFT_STRUCT, writer->ncolumns);
	for (int i = 0; i < writer->ncolumns; i++)
	{
		ThriftListStructBegin(&tw);
		ThriftEmptyStructField(&tw, 1); /* TYPE_ORDER */
		ThriftStructEnd(&tw);
	}
	ThriftStructEnd(&tw);

	PqSinkWrite(writer, footer.data, footer.len);
	len = (uint32) footer.len;
	tail[0] = len & 0xff;
	tail[1] = (len >> 8) & 0xff;
	tail[2] = (len >> 16) & 0xff;
	tail[3] = len >> 24;
	memcpy(tail + 4, "PAR1", 4);
	PqSinkWrite(writer, tail, 8);
	pfree(footer.data);

	writer->closed = true;
	return writer->file_pos;
}

/* ParquetWriterRowCount is the number of rows written. */
int64
ParquetWriterRowCount(ParquetWriter *writer)
{
	return writer->total_rows;
}

/* ParquetWriterLeafCount is the number of leaf columns. */
int
ParquetWriterLeafCount(ParquetWriter *writer)
{
	return writer->ncolumns;
}

/* ParquetWriterColumnStats returns the whole-file statistics of a leaf. */
void
ParquetWriterColumnStats(ParquetWriter *writer, int leaf, ParquetColumnStats *stats)
{
	PqColumn   *col;

	if (leaf < 0 || leaf >= writer->ncolumns)
		elog(ERROR, "invalid parquet leaf %d", leaf);
	col = &writer->columns[leaf];
	stats->path = col->path_dotted;
	stats->field_id = col->node->field_id;
	stats->type = col->node->type;
	stats->value_count = col->file_num_values;
	stats->null_count = col->file_stats.null_count;
	stats->nan_count = col->file_stats.nan_count;
	stats->compressed_bytes = col->file_compressed;
	stats->has_min_max = col->file_stats.has_min_max;
	stats->min = col->file_stats.min.data;
	stats->min_len = (int32) col->file_stats.min.len;
	stats->max = col->file_stats.max.data;
	stats->max_len = (int32) col->file_stats.max.len;
}

/* ParquetWriterDestroy frees everything the writer holds. */
void
ParquetWriterDestroy(ParquetWriter *writer)
{
	MemoryContextDelete(writer->context);
}
