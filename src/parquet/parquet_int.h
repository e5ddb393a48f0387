/*-------------------------------------------------------------------------
 *
 * parquet_int.h
 *	  Internal structures shared by the files of src/parquet/.
 *
 * Nothing outside src/parquet/ includes this file; parquet.h is the
 * module's interface.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ICEBERG_EXPORT_PARQUET_INT_H
#define ICEBERG_EXPORT_PARQUET_INT_H

#include "parquet/parquet.h"

/* Parquet enums from parquet.thrift, only the members we write. */
#define PQ_PHYS_BOOLEAN 0
#define PQ_PHYS_INT32 1
#define PQ_PHYS_INT64 2
#define PQ_PHYS_FLOAT 4
#define PQ_PHYS_DOUBLE 5
#define PQ_PHYS_BYTE_ARRAY 6
#define PQ_PHYS_FLBA 7

#define PQ_REP_REQUIRED 0
#define PQ_REP_OPTIONAL 1
#define PQ_REP_REPEATED 2

#define PQ_ENC_PLAIN 0
#define PQ_ENC_RLE 3
#define PQ_ENC_RLE_DICTIONARY 8

#define PQ_PAGE_DATA 0
#define PQ_PAGE_DICTIONARY 2

#define PQ_CONV_UTF8 0
#define PQ_CONV_LIST 3
#define PQ_CONV_DECIMAL 5
#define PQ_CONV_DATE 6
#define PQ_CONV_TIME_MICROS 8
#define PQ_CONV_TIMESTAMP_MICROS 10

/* Bounds above this length are left out of the footer's statistics. */
#define PQ_MAX_STAT_BYTES 4096

/* A data page ends at a row boundary once it holds this many level entries. */
#define PQ_PAGE_MAX_ENTRIES 20000

/* A growable byte buffer in a memory context; may exceed 1 GB. */
typedef struct PqBuf
{
	uint8	   *data;
	size_t		len;
	size_t		cap;
	MemoryContext context;
} PqBuf;

extern void PqBufInit(PqBuf *buf, MemoryContext context, size_t initial);
extern void PqBufGrow(PqBuf *buf, size_t extra);

/* PqBufReserve makes room for extra more bytes. */
static inline void
PqBufReserve(PqBuf *buf, size_t extra)
{
	if (unlikely(buf->len + extra > buf->cap))
		PqBufGrow(buf, extra);
}

/* PqBufAppend appends len bytes. */
static inline void
PqBufAppend(PqBuf *buf, const void *data, size_t len)
{
	PqBufReserve(buf, len);
	memcpy(buf->data + buf->len, data, len);
	buf->len += len;
}

/* PqBufAppendByte appends one byte. */
static inline void
PqBufAppendByte(PqBuf *buf, uint8 byte)
{
	PqBufReserve(buf, 1);
	buf->data[buf->len++] = byte;
}

/* PqBufAppendUInt32LE appends a little-endian uint32. */
static inline void
PqBufAppendUInt32LE(PqBuf *buf, uint32 v)
{
	uint8		b[4] = {v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, v >> 24};

	PqBufAppend(buf, b, 4);
}

/* One schema node; the tree is stored flat in ParquetSchema.nodes. */
typedef struct ParquetNode
{
	char	   *name;
	int32		field_id;
	bool		required;
	ParquetType type;
	int			precision;
	int			scale;
	int			type_length;	/* FLBA length */
	int			physical;		/* PQ_PHYS_*, -1 for groups */
	ParquetNodeId parent;
	int			nchildren;
	int			children_cap;
	ParquetNodeId *children;

	/* Filled in when a writer is created. */
	int			def_level;		/* definition level when this node is present */
	int			rep_level;		/* repetition level of its repeated ancestors */
	int			leaf;			/* leaf index, or -1 for groups */
	int			first_leaf;		/* leaves under this node are contiguous */
	int			nleaves;
} ParquetNode;

struct ParquetSchema
{
	MemoryContext context;
	int			nnodes;
	int			nodes_cap;
	ParquetNode *nodes;
};

/* Statistics of one column chunk (or of the whole file). */
typedef struct PqStats
{
	int64		null_count;
	int64		nan_count;
	bool		has_min_max;
	PqBuf		min;
	PqBuf		max;
} PqStats;

/* Dictionary of distinct values of one column chunk. */
typedef struct PqDict
{
	PqBuf		plain;			/* the dictionary page body: PLAIN values */
	uint32	   *offsets;		/* start of entry i in plain */
	uint32	   *hashes;			/* hash of entry i */
	uint32		nentries;
	uint32		entries_cap;
	uint32	   *slots;			/* open addressing: entry index + 1, 0 = empty */
	uint32		nslots;			/* power of two */
} PqDict;

/* The writer of one leaf column. */
typedef struct PqColumn
{
	ParquetNode *node;
	int			physical;
	int			width;			/* fixed value width in bytes, 0 for BYTE_ARRAY */
	int			max_def;
	int			max_rep;
	char	   *path_dotted;
	int			npath;
	char	  **path;			/* path_in_schema */

	/* current page */
	uint8	   *def_levels;
	uint8	   *rep_levels;
	uint32		nlevels;
	uint32		levels_cap;
	PqBuf		values;			/* PLAIN values (booleans: one byte each) */
	uint32	   *indices;		/* dictionary indices */
	uint32		nindices;
	uint32		indices_cap;
	uint32		page_nonnull;
	size_t		page_plain_bytes;	/* PLAIN size of this page's values */

	/* dictionary state of the current chunk */
	bool		dict_enabled;	/* column type allows a dictionary */
	bool		use_dict;		/* dictionary encoding currently active */
	bool		dict_checked;	/* first-page worthiness test done */
	PqDict		dict;

	/* current chunk */
	PqBuf		chunk;			/* encoded data pages with headers */
	int64		chunk_uncompressed; /* page headers + uncompressed bodies */
	int64		chunk_num_values;
	int32		chunk_dict_pages;
	int32		chunk_plain_pages;
	int64		rows_in_group;
	PqStats		chunk_stats;

	/* whole file */
	PqStats		file_stats;
	int64		file_num_values;
	int64		file_compressed;
} PqColumn;

/* An open list in the row being written. */
typedef struct PqListFrame
{
	ParquetNode *node;
	int64		nitems;
	int			saved_rep;
} PqListFrame;

struct ParquetWriter
{
	MemoryContext context;
	ParquetSchema *schema;
	ParquetWriterOptions options;
	ParquetSinkWrite sink;
	void	   *sink_arg;
	int64		file_pos;

	int			ncolumns;
	PqColumn   *columns;

	/* row state */
	bool		in_row;
	int			ctx_rep;		/* repetition level for the next first entry */
	PqListFrame *lists;
	int			nlists;
	int			lists_cap;

	int64		rows_in_group;
	int64		total_rows;
	int32		nrow_groups;
	PqBuf		row_groups;		/* serialized RowGroup structs for the footer */

	/* scratch buffers for page encoding */
	PqBuf		page_body;
	PqBuf		page_compressed;
	PqBuf		page_header;
	void	   *compressor;		/* codec state (ZSTD_CCtx) */

	bool		closed;
};

/* thrift.c: compact protocol encoder */
typedef struct ThriftWriter
{
	PqBuf	   *buf;
	int			depth;
	int16		last_id[32];
} ThriftWriter;

#define THRIFT_BOOL_TRUE 1
#define THRIFT_BOOL_FALSE 2
#define THRIFT_I8 3
#define THRIFT_I16 4
#define THRIFT_I32 5
#define THRIFT_I64 6
#define THRIFT_BINARY 8
#define THRIFT_LIST 9
#define THRIFT_STRUCT 12

extern void ThriftInit(ThriftWriter *tw, PqBuf *buf);
extern void ThriftFieldI32(ThriftWriter *tw, int16 id, int32 value);
extern void ThriftFieldI64(ThriftWriter *tw, int16 id, int64 value);
extern void ThriftFieldBool(ThriftWriter *tw, int16 id, bool value);
extern void ThriftFieldBinary(ThriftWriter *tw, int16 id, const void *data, int32 len);
extern void ThriftFieldString(ThriftWriter *tw, int16 id, const char *str);
extern void ThriftFieldStructBegin(ThriftWriter *tw, int16 id);
extern void ThriftFieldListBegin(ThriftWriter *tw, int16 id, uint8 elem_type, int32 size);
extern void ThriftListStructBegin(ThriftWriter *tw);
extern void ThriftListI32(ThriftWriter *tw, int32 value);
extern void ThriftListString(ThriftWriter *tw, const char *str);
extern void ThriftStructEnd(ThriftWriter *tw);
extern void ThriftEmptyStructField(ThriftWriter *tw, int16 id);

/* encoding.c: RLE / bit-packing hybrid and PLAIN booleans */
extern int	PqBitWidth(uint32 max_value);
extern void PqEncodeHybrid8(PqBuf *out, const uint8 *values, uint32 n, int bit_width);
extern void PqEncodeHybrid32(PqBuf *out, const uint32 *values, uint32 n, int bit_width);
extern void PqEncodeLevels(PqBuf *out, const uint8 *levels, uint32 n, int max_level);
extern void PqEncodePlainBooleans(PqBuf *out, const uint8 *values, uint32 n);

/* dictionary.c */
extern void PqDictInit(PqDict *dict, MemoryContext context);
extern void PqDictReset(PqDict *dict);
extern bool PqDictLookupOrAdd(PqDict *dict, const uint8 *value, int32 len,
							  int width, uint32 *index);
extern void PqDictEntry(const PqDict *dict, uint32 index, int width,
						const uint8 **value, int32 *len);

/* compress.c */
extern void PqCompressorInit(ParquetWriter *writer);
extern void PqCompress(ParquetWriter *writer, const uint8 *src, size_t len, PqBuf *out);

/* stats.c */
extern void PqStatsInit(PqStats *stats, MemoryContext context);
extern void PqStatsReset(PqStats *stats);
extern void PqStatsUpdate(PqStats *stats, const ParquetNode *node,
						  const uint8 *value, int32 len);
extern void PqStatsMerge(PqStats *into, const PqStats *from, const ParquetNode *node);
extern void PqStatsWriteThrift(ThriftWriter *tw, int16 id, const PqStats *stats,
							   const ParquetNode *node);

/* column.c */
extern void PqColumnInit(ParquetWriter *writer, PqColumn *col, ParquetNode *leaf);
extern void PqColumnAddValue(ParquetWriter *writer, PqColumn *col,
							 const uint8 *value, int32 len);
extern void PqColumnFinishPage(ParquetWriter *writer, PqColumn *col);
extern void PqColumnFlushChunk(ParquetWriter *writer, PqColumn *col, ThriftWriter *tw,
							   int64 *uncompressed, int64 *compressed);
extern void PqColumnCheckLimits(ParquetWriter *writer, PqColumn *col);
extern size_t PqColumnBufferedBytes(const PqColumn *col);

/* PqColumnAddLevels records one level entry of a leaf column. */
static inline void
PqColumnAddLevels(PqColumn *col, int rep, int def)
{
	col->rows_in_group += (rep == 0);
	if (col->max_def == 0 && col->max_rep == 0)
	{
		col->nlevels++;
		return;
	}
	if (unlikely(col->nlevels >= col->levels_cap))
	{
		uint32		newcap = col->levels_cap * 2;

		col->def_levels = repalloc_huge(col->def_levels, newcap);
		if (col->rep_levels)
			col->rep_levels = repalloc_huge(col->rep_levels, newcap);
		col->levels_cap = newcap;
	}
	col->def_levels[col->nlevels] = (uint8) def;
	if (col->rep_levels)
		col->rep_levels[col->nlevels] = (uint8) rep;
	col->nlevels++;
}

/* footer.c */
extern void PqWriteSchemaElements(ThriftWriter *tw, const ParquetSchema *schema);
extern int	PqSchemaElementCount(const ParquetSchema *schema);
extern void PqWritePageHeader(PqBuf *out, int page_type, uint32 uncompressed,
							  uint32 compressed, uint32 num_values, int encoding);

/* writer.c */
extern void PqSinkWrite(ParquetWriter *writer, const void *data, size_t len);

#endif							/* ICEBERG_EXPORT_PARQUET_INT_H */
