/*-------------------------------------------------------------------------
 *
 * column.c
 *	  The writer of one leaf column: levels, values, pages and chunks.
 *
 * Values of the current page are buffered uncompressed, either PLAIN or as
 * dictionary indices.  A finished page is encoded, compressed and appended
 * to the chunk buffer.  When the row group is flushed, the dictionary page
 * (if any page used the dictionary) and then the data pages go to the sink,
 * and the chunk's ColumnChunk metadata is appended to the row group's
 * footer entry.
 *
 * The dictionary is abandoned for the rest of the chunk when it outgrows
 * its size limit, or when after the first page it is no smaller than PLAIN
 * would have been.  Pages already written keep RLE_DICTIONARY; later pages
 * are PLAIN, as parquet-java does.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "parquet/parquet_int.h"

/* PqColumnInit sets up the writer of leaf column leaf. */
void
PqColumnInit(ParquetWriter *writer, PqColumn *col, ParquetNode *leaf)
{
	MemoryContext cxt = writer->context;
	ParquetSchema *schema = writer->schema;
	int			depth = 0;
	StringInfoData dotted;

	memset(col, 0, sizeof(PqColumn));
	col->node = leaf;
	col->physical = leaf->physical;
	switch (leaf->physical)
	{
		case PQ_PHYS_BOOLEAN:
			col->width = 1;
			break;
		case PQ_PHYS_INT32:
		case PQ_PHYS_FLOAT:
			col->width = 4;
			break;
		case PQ_PHYS_INT64:
		case PQ_PHYS_DOUBLE:
			col->width = 8;
			break;
		case PQ_PHYS_FLBA:
			col->width = leaf->type_length;
			break;
		default:
			col->width = 0;
			break;
	}
	col->max_def = leaf->def_level;
	col->max_rep = leaf->rep_level;

	/* path_in_schema: names below the root, with "list" after each list */
	for (ParquetNodeId id = leaf - schema->nodes; id != PARQUET_ROOT_NODE;
		 id = schema->nodes[id].parent)
		depth += schema->nodes[id].type == PARQUET_TYPE_LIST ? 2 : 1;
	col->npath = depth;
	col->path = MemoryContextAlloc(cxt, sizeof(char *) * depth);
	for (ParquetNodeId id = leaf - schema->nodes; id != PARQUET_ROOT_NODE;
		 id = schema->nodes[id].parent)
	{
		if (schema->nodes[id].type == PARQUET_TYPE_LIST)
			col->path[--depth] = "list";
		col->path[--depth] = schema->nodes[id].name;
	}
	initStringInfo(&dotted);
	for (int i = 0; i < col->npath; i++)
		appendStringInfo(&dotted, "%s%s", i > 0 ? "." : "", col->path[i]);
	col->path_dotted = MemoryContextStrdup(cxt, dotted.data);
	pfree(dotted.data);

	col->levels_cap = 1024;
	if (col->max_def > 0 || col->max_rep > 0)
		col->def_levels = MemoryContextAllocHuge(cxt, col->levels_cap);
	if (col->max_rep > 0)
		col->rep_levels = MemoryContextAllocHuge(cxt, col->levels_cap);
	PqBufInit(&col->values, cxt, 8192);
	col->indices_cap = 1024;
	col->indices = MemoryContextAllocHuge(cxt, sizeof(uint32) * col->indices_cap);

	col->dict_enabled = leaf->physical != PQ_PHYS_BOOLEAN &&
		writer->options.dictionary_bytes > 0;
	col->use_dict = col->dict_enabled;
	if (col->dict_enabled)
		PqDictInit(&col->dict, cxt);

	PqBufInit(&col->chunk, cxt, 8192);
	PqStatsInit(&col->chunk_stats, cxt);
	PqStatsInit(&col->file_stats, cxt);
}

/* PqColumnAddValue appends one non-null value; its levels are already added. */
void
PqColumnAddValue(ParquetWriter *writer, PqColumn *col, const uint8 *value, int32 len)
{
	col->page_nonnull++;
	col->page_plain_bytes += col->width > 0 ? col->width : 4 + len;

	if (col->use_dict)
	{
		uint32		index;
		bool		added = PqDictLookupOrAdd(&col->dict, value, len, col->width, &index);

		/* a new distinct value can change the bounds; NaNs are counted each time */
		if (added || col->physical == PQ_PHYS_FLOAT || col->physical == PQ_PHYS_DOUBLE)
			PqStatsUpdate(&col->chunk_stats, col->node, value, len);
		if (unlikely(col->nindices >= col->indices_cap))
		{
			col->indices_cap *= 2;
			col->indices = repalloc_huge(col->indices, sizeof(uint32) * col->indices_cap);
		}
		col->indices[col->nindices++] = index;
		return;
	}

	PqStatsUpdate(&col->chunk_stats, col->node, value, len);
	if (col->width == 0)
	{
		PqBufReserve(&col->values, 4 + (size_t) len);
		PqBufAppendUInt32LE(&col->values, (uint32) len);
	}
	PqBufAppend(&col->values, value, len);
}

/* PqDictBitWidth is the index width of the dictionary; at least 1. */
static inline int
PqDictBitWidth(const PqColumn *col)
{
	return Max(1, PqBitWidth(col->dict.nentries > 0 ? col->dict.nentries - 1 : 0));
}

/* PqColumnFinishPage encodes, compresses and appends the current page. */
void
PqColumnFinishPage(ParquetWriter *writer, PqColumn *col)
{
	PqBuf	   *body = &writer->page_body;
	PqBuf	   *comp = &writer->page_compressed;
	PqBuf	   *header = &writer->page_header;
	int			encoding;

	if (col->nlevels == 0)
		return;

	body->len = 0;
	if (col->max_rep > 0)
		PqEncodeLevels(body, col->rep_levels, col->nlevels, col->max_rep);
	if (col->max_def > 0)
		PqEncodeLevels(body, col->def_levels, col->nlevels, col->max_def);

	if (col->use_dict)
	{
		int			bw = PqDictBitWidth(col);

		encoding = PQ_ENC_RLE_DICTIONARY;
		PqBufAppendByte(body, (uint8) bw);
		PqEncodeHybrid32(body, col->indices, col->nindices, bw);
		col->chunk_dict_pages++;

		/* after the first page, keep the dictionary only if it pays */
		if (!col->dict_checked)
		{
			size_t		dict_cost = col->dict.plain.len +
				((size_t) col->nindices * bw + 7) / 8;

			col->dict_checked = true;
			if (dict_cost >= col->page_plain_bytes)
				col->use_dict = false;
		}
	}
	else
	{
		encoding = PQ_ENC_PLAIN;
		if (col->physical == PQ_PHYS_BOOLEAN)
			PqEncodePlainBooleans(body, col->values.data, (uint32) col->values.len);
		else
			PqBufAppend(body, col->values.data, col->values.len);
		col->chunk_plain_pages++;
	}

	if (body->len > PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("parquet page of column \"%s\" exceeds 2 GB", col->path_dotted),
				 errhint("A single row holds too much data for one Parquet page.")));

	comp->len = 0;
	PqCompress(writer, body->data, body->len, comp);
	header->len = 0;
	PqWritePageHeader(header, PQ_PAGE_DATA, (uint32) body->len, (uint32) comp->len,
					  col->nlevels, encoding);
	PqBufAppend(&col->chunk, header->data, header->len);
	PqBufAppend(&col->chunk, comp->data, comp->len);
	col->chunk_uncompressed += header->len + body->len;
	col->chunk_num_values += col->nlevels;

	col->nlevels = 0;
	col->values.len = 0;
	col->nindices = 0;
	col->page_nonnull = 0;
	col->page_plain_bytes = 0;
}

/*
 * PqColumnCheckLimits ends the current page when it is full, and gives up
 * the dictionary when it has grown too big.  Called at row boundaries.
 */
void
PqColumnCheckLimits(ParquetWriter *writer, PqColumn *col)
{
	if (col->use_dict && col->dict.plain.len > (size_t) writer->options.dictionary_bytes)
	{
		PqColumnFinishPage(writer, col);
		col->use_dict = false;
		return;
	}
	if (col->nlevels >= PQ_PAGE_MAX_ENTRIES ||
		col->values.len >= (size_t) writer->options.page_bytes)
		PqColumnFinishPage(writer, col);
}

/* PqColumnBufferedBytes estimates the memory held for the current row group. */
size_t
PqColumnBufferedBytes(const PqColumn *col)
{
	return col->chunk.len + col->values.len + (size_t) col->nindices * 4 +
		(size_t) col->nlevels * 2 + (col->dict_enabled ? col->dict.plain.len : 0);
}

/* PqWriteEncodingStats writes ColumnMetaData.encoding_stats (field 13). */
static void
PqWriteEncodingStats(ThriftWriter *tw, const PqColumn *col)
{
	int			n = (col->chunk_dict_pages > 0 ? 2 : 0) + (col->chunk_plain_pages > 0 ? 1 : 0);

	ThriftFieldListBegin(tw, 13, THRIFT_STRUCT, n);
	if (col->chunk_dict_pages > 0)
	{
		ThriftListStructBegin(tw);
		ThriftFieldI32(tw, 1, PQ_PAGE_DICTIONARY);
		ThriftFieldI32(tw, 2, PQ_ENC_PLAIN);
		ThriftFieldI32(tw, 3, 1);
		ThriftStructEnd(tw);
		ThriftListStructBegin(tw);
		ThriftFieldI32(tw, 1, PQ_PAGE_DATA);
		ThriftFieldI32(tw, 2, PQ_ENC_RLE_DICTIONARY);
		ThriftFieldI32(tw, 3, col->chunk_dict_pages);
		ThriftStructEnd(tw);
	}
	if (col->chunk_plain_pages > 0)
	{
		ThriftListStructBegin(tw);
		ThriftFieldI32(tw, 1, PQ_PAGE_DATA);
		ThriftFieldI32(tw, 2, PQ_ENC_PLAIN);
		ThriftFieldI32(tw, 3, col->chunk_plain_pages);
		ThriftStructEnd(tw);
	}
}

/*
 * PqColumnFlushChunk writes the column's chunk of the current row group to
 * the sink, appends its ColumnChunk to tw, and starts a new chunk.
 */
void
PqColumnFlushChunk(ParquetWriter *writer, PqColumn *col, ThriftWriter *tw,
				   int64 *uncompressed, int64 *compressed)
{
	int64		chunk_start;
	int64		dict_offset = -1;
	int64		data_offset;
	int64		total_uncompressed = 0;
	int64		total_compressed = 0;
	int			nencodings = 0;
	int			encodings[3];

	PqColumnFinishPage(writer, col);
	chunk_start = writer->file_pos;

	if (col->chunk_dict_pages > 0)
	{
		PqBuf	   *comp = &writer->page_compressed;
		PqBuf	   *header = &writer->page_header;

		comp->len = 0;
		PqCompress(writer, col->dict.plain.data, col->dict.plain.len, comp);
		header->len = 0;
		PqWritePageHeader(header, PQ_PAGE_DICTIONARY, (uint32) col->dict.plain.len,
						  (uint32) comp->len, col->dict.nentries, PQ_ENC_PLAIN);
		dict_offset = writer->file_pos;
		PqSinkWrite(writer, header->data, header->len);
		PqSinkWrite(writer, comp->data, comp->len);
		total_uncompressed += header->len + col->dict.plain.len;
		total_compressed += header->len + comp->len;
	}
	data_offset = writer->file_pos;
	PqSinkWrite(writer, col->chunk.data, col->chunk.len);
	total_uncompressed += col->chunk_uncompressed;
	total_compressed += col->chunk.len;

	/* ColumnChunk */
	ThriftListStructBegin(tw);
	ThriftFieldI64(tw, 2, chunk_start);
	ThriftFieldStructBegin(tw, 3);	/* ColumnMetaData */
	ThriftFieldI32(tw, 1, col->physical);
	if (col->chunk_dict_pages > 0 || col->chunk_plain_pages > 0)
		encodings[nencodings++] = PQ_ENC_PLAIN;
	if (col->max_def > 0 || col->max_rep > 0)
		encodings[nencodings++] = PQ_ENC_RLE;
	if (col->chunk_dict_pages > 0)
		encodings[nencodings++] = PQ_ENC_RLE_DICTIONARY;
	ThriftFieldListBegin(tw, 2, THRIFT_I32, nencodings);
	for (int i = 0; i < nencodings; i++)
		ThriftListI32(tw, encodings[i]);
	ThriftFieldListBegin(tw, 3, THRIFT_BINARY, col->npath);
	for (int i = 0; i < col->npath; i++)
		ThriftListString(tw, col->path[i]);
	ThriftFieldI32(tw, 4, writer->options.codec);
	ThriftFieldI64(tw, 5, col->chunk_num_values);
	ThriftFieldI64(tw, 6, total_uncompressed);
	ThriftFieldI64(tw, 7, total_compressed);
	ThriftFieldI64(tw, 9, data_offset);
	if (dict_offset >= 0)
		ThriftFieldI64(tw, 11, dict_offset);
	PqStatsWriteThrift(tw, 12, &col->chunk_stats, col->node);
	PqWriteEncodingStats(tw, col);
	ThriftStructEnd(tw);		/* ColumnMetaData */
	ThriftStructEnd(tw);		/* ColumnChunk */

	*uncompressed += total_uncompressed;
	*compressed += total_compressed;

	/* the file's view of this column */
	PqStatsMerge(&col->file_stats, &col->chunk_stats, col->node);
	col->file_num_values += col->chunk_num_values;
	col->file_compressed += total_compressed;

	/* a fresh chunk, which tries the dictionary again */
	col->chunk.len = 0;
	col->chunk_uncompressed = 0;
	col->chunk_num_values = 0;
	col->chunk_dict_pages = 0;
	col->chunk_plain_pages = 0;
	col->rows_in_group = 0;
	PqStatsReset(&col->chunk_stats);
	if (col->dict_enabled)
	{
		PqDictReset(&col->dict);
		col->use_dict = true;
		col->dict_checked = false;
	}
}
