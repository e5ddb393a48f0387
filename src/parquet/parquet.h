/*-------------------------------------------------------------------------
 *
 * parquet.h
 *	  Streaming Parquet file writer: the interface of src/parquet/.
 *
 * A writer is built in three steps:
 *
 *   1. Describe the schema as a tree of nodes (ParquetSchemaAdd*).  Every
 *      node except the root carries a field id.  Lists are three-level
 *      LIST groups; the writer creates the intermediate "list" group itself.
 *   2. Open a writer on a sink (a callback that appends bytes somewhere).
 *   3. Write rows.  Each row begins with ParquetRowBegin, then gives a value
 *      or a null for every top-level node in schema order, and ends with
 *      ParquetRowEnd.  Lists are written as ParquetListBegin, then for each
 *      element ParquetListNextItem followed by the element's value, then
 *      ParquetListEnd.  Struct nodes need no call of their own: write their
 *      children in order, or ParquetWriteNull on the struct itself.
 *
 * Row groups are flushed to the sink when their buffered size reaches the
 * target, so memory stays bounded by one row group whatever the file size.
 *
 * All memory lives in a context owned by the writer; errors are reported
 * with ereport and release everything with that context.
 *
 * This module knows nothing of Iceberg, catalogs or storage.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ICEBERG_EXPORT_PARQUET_H
#define ICEBERG_EXPORT_PARQUET_H

#include "postgres.h"

/* Column types, each mapped to one physical + logical Parquet type. */
typedef enum ParquetType
{
	PARQUET_TYPE_BOOLEAN,		/* BOOLEAN */
	PARQUET_TYPE_INT32,			/* INT32 */
	PARQUET_TYPE_INT64,			/* INT64 */
	PARQUET_TYPE_FLOAT,			/* FLOAT */
	PARQUET_TYPE_DOUBLE,		/* DOUBLE */
	PARQUET_TYPE_STRING,		/* BYTE_ARRAY, STRING (UTF8) */
	PARQUET_TYPE_BINARY,		/* BYTE_ARRAY */
	PARQUET_TYPE_DECIMAL,		/* INT32 / INT64 / FLBA by precision */
	PARQUET_TYPE_DATE,			/* INT32, DATE: days since 1970-01-01 */
	PARQUET_TYPE_TIME,			/* INT64, TIME(micros, not UTC) */
	PARQUET_TYPE_TIMESTAMP,		/* INT64, TIMESTAMP(micros, not UTC) */
	PARQUET_TYPE_TIMESTAMPTZ,	/* INT64, TIMESTAMP(micros, UTC) */
	PARQUET_TYPE_UUID,			/* FLBA(16), UUID */
	PARQUET_TYPE_FIXED,			/* FLBA(length) */
	PARQUET_TYPE_STRUCT,		/* group */
	PARQUET_TYPE_LIST			/* 3-level LIST group */
} ParquetType;

typedef enum ParquetCodec
{
	PARQUET_CODEC_UNCOMPRESSED = 0,
	PARQUET_CODEC_SNAPPY = 1,
	PARQUET_CODEC_GZIP = 2,
	PARQUET_CODEC_ZSTD = 6
} ParquetCodec;

/* Largest decimal precision the writer accepts. */
#define PARQUET_MAX_DECIMAL_PRECISION 38

/* Index of a node in a schema; the root is node 0. */
typedef int ParquetNodeId;

#define PARQUET_ROOT_NODE 0

typedef struct ParquetSchema ParquetSchema;
typedef struct ParquetWriter ParquetWriter;

/*
 * A sink receives the file's bytes in order.  It returns nothing and reports
 * failures with ereport.
 */
typedef void (*ParquetSinkWrite) (void *arg, const void *data, size_t len);

typedef struct ParquetWriterOptions
{
	ParquetCodec codec;
	int			compression_level;	/* 0 = codec default */
	int64		row_group_bytes;	/* flush a row group at this buffered size */
	int32		page_bytes;		/* target uncompressed size of one data page */
	int32		dictionary_bytes;	/* fall back to PLAIN beyond this dictionary size */
	const char *created_by;		/* FileMetaData.created_by; must not be empty */
} ParquetWriterOptions;

/* Column statistics over the whole file, for table-format metrics. */
typedef struct ParquetColumnStats
{
	const char *path;			/* dotted path of the leaf, for messages */
	int32		field_id;		/* field id of the leaf */
	ParquetType type;
	int64		value_count;	/* level entries, nulls included */
	int64		null_count;
	int64		nan_count;		/* float and double only */
	int64		compressed_bytes;	/* on-disk size of the leaf's chunks */
	bool		has_min_max;	/* false when all values are null or NaN */
	/* Bounds in Parquet PLAIN form without length prefix (little-endian ints). */
	const uint8 *min;
	int32		min_len;
	const uint8 *max;
	int32		max_len;
} ParquetColumnStats;

/* ParquetWriterOptionsInit fills in the defaults. */
extern void ParquetWriterOptionsInit(ParquetWriterOptions *options);

/* ParquetCodecFromName parses "zstd", "snappy", "gzip", "none"/"uncompressed". */
extern bool ParquetCodecFromName(const char *name, ParquetCodec *codec);

/* ParquetCodecName is the inverse of ParquetCodecFromName. */
extern const char *ParquetCodecName(ParquetCodec codec);

/* Schema construction. ------------------------------------------------ */

/* ParquetSchemaCreate makes an empty schema whose root is named "table". */
extern ParquetSchema *ParquetSchemaCreate(MemoryContext context);

/*
 * ParquetSchemaAddColumn adds a node of a non-decimal, non-fixed type under
 * parent (the root, a struct, or a list, whose one child is its element).
 */
extern ParquetNodeId ParquetSchemaAddColumn(ParquetSchema *schema,
											ParquetNodeId parent,
											const char *name, int32 field_id,
											bool required, ParquetType type);

/* ParquetSchemaAddDecimal adds a decimal(precision, scale) node. */
extern ParquetNodeId ParquetSchemaAddDecimal(ParquetSchema *schema,
											 ParquetNodeId parent,
											 const char *name, int32 field_id,
											 bool required,
											 int precision, int scale);

/* ParquetSchemaAddFixed adds a fixed(length) node. */
extern ParquetNodeId ParquetSchemaAddFixed(ParquetSchema *schema,
										   ParquetNodeId parent,
										   const char *name, int32 field_id,
										   bool required, int length);

/* ParquetDecimalByteLength is the FLBA length used for a precision > 18. */
extern int	ParquetDecimalByteLength(int precision);

/* Writing. ------------------------------------------------------------ */

/*
 * ParquetWriterCreate opens a writer and writes the leading magic.  The
 * schema must not change afterwards.
 */
extern ParquetWriter *ParquetWriterCreate(ParquetSchema *schema,
										  const ParquetWriterOptions *options,
										  ParquetSinkWrite sink, void *sink_arg);

extern void ParquetRowBegin(ParquetWriter *writer);
extern void ParquetRowEnd(ParquetWriter *writer);

/* ParquetWriteNull writes a null for an optional node (leaf, struct or list). */
extern void ParquetWriteNull(ParquetWriter *writer, ParquetNodeId node);

/* Leaf values; the node's type decides which call is valid. */
extern void ParquetWriteBool(ParquetWriter *writer, ParquetNodeId node, bool value);
/* INT32, DATE, and DECIMAL with precision <= 9 */
extern void ParquetWriteInt32(ParquetWriter *writer, ParquetNodeId node, int32 value);
/* INT64, TIME, TIMESTAMP(TZ), and DECIMAL with precision <= 18 */
extern void ParquetWriteInt64(ParquetWriter *writer, ParquetNodeId node, int64 value);
extern void ParquetWriteFloat(ParquetWriter *writer, ParquetNodeId node, float value);
extern void ParquetWriteDouble(ParquetWriter *writer, ParquetNodeId node, double value);
/* STRING, BINARY, and the FLBA types (UUID, FIXED, DECIMAL > 18) with len = type length */
extern void ParquetWriteBytes(ParquetWriter *writer, ParquetNodeId node,
							  const void *data, int32 len);
/* DECIMAL of any precision, from the unscaled value */
extern void ParquetWriteDecimal(ParquetWriter *writer, ParquetNodeId node,
								int128 unscaled);

/* Lists: Begin, then NextItem + the element for each element, then End. */
extern void ParquetListBegin(ParquetWriter *writer, ParquetNodeId node);
extern void ParquetListNextItem(ParquetWriter *writer);
extern void ParquetListEnd(ParquetWriter *writer);

/* ParquetWriterBufferedBytes is the size of the row group being built. */
extern int64 ParquetWriterBufferedBytes(ParquetWriter *writer);

/* ParquetWriterBytesWritten is what the sink has received so far. */
extern int64 ParquetWriterBytesWritten(ParquetWriter *writer);

/*
 * ParquetWriterClose flushes the last row group and writes the footer.
 * Returns the total number of bytes written to the sink.
 */
extern int64 ParquetWriterClose(ParquetWriter *writer);

/* After close: rows written, and per-leaf statistics over the whole file. */
extern int64 ParquetWriterRowCount(ParquetWriter *writer);
extern int	ParquetWriterLeafCount(ParquetWriter *writer);
extern void ParquetWriterColumnStats(ParquetWriter *writer, int leaf,
									 ParquetColumnStats *stats);

/* ParquetWriterDestroy frees everything the writer holds. */
extern void ParquetWriterDestroy(ParquetWriter *writer);

#endif							/* ICEBERG_EXPORT_PARQUET_H */
