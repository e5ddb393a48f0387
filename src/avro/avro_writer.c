/*-------------------------------------------------------------------------
 *
 * avro_writer.c
 *	  Avro object container files: header, blocks, sync markers, values.
 *
 * Layout (Avro 1.11 specification, "Object Container Files"):
 *   "Obj" 0x01, metadata map<string, bytes>, 16-byte sync marker,
 *   then blocks: record count (long), byte size (long), data, sync marker.
 * Values use Avro's binary encoding: zig-zag varints for int and long,
 * little-endian IEEE floats, length-prefixed bytes and strings, and
 * counted blocks for arrays and maps.  The deflate codec is raw RFC 1951.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <zlib.h>

#include "avro/avro.h"
#include "lib/stringinfo.h"
#include "nodes/pg_list.h"
#include "utils/memutils.h"

/* A block is written once its encoded records reach this size. */
#define AVRO_BLOCK_BYTES (1024 * 1024)

struct AvroWriter
{
	MemoryContext context;
	AvroCodec	codec;
	AvroSinkWrite sink;
	void	   *sink_arg;
	char	   *schema_json;
	List	   *meta_keys;
	List	   *meta_values;
	uint8		sync[16];
	bool		header_written;
	StringInfoData block;		/* encoded records of the current block */
	int64		block_records;
	StringInfoData out;			/* scratch: block framing and compression */
	int64		file_size;
};

/* AvroVarint appends a zig-zag varint to buf. */
static void
AvroVarint(StringInfo buf, int64 value)
{
	uint64		v = ((uint64) value << 1) ^ (uint64) (value >> 63);

	enlargeStringInfo(buf, 10);
	while (v >= 0x80)
	{
		buf->data[buf->len++] = (char) (v | 0x80);
		v >>= 7;
	}
	buf->data[buf->len++] = (char) v;
}

/* AvroSink writes bytes to the sink and counts them. */
static void
AvroSink(AvroWriter *writer, const void *data, size_t len)
{
	writer->sink(writer->sink_arg, data, len);
	writer->file_size += len;
}

/* AvroWriterCreate starts a file with schema_json as avro.schema. */
AvroWriter *
AvroWriterCreate(const char *schema_json, AvroCodec codec,
				 AvroSinkWrite sink, void *sink_arg)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "avro writer",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	AvroWriter *writer = palloc0(sizeof(AvroWriter));

	writer->context = cxt;
	writer->codec = codec;
	writer->sink = sink;
	writer->sink_arg = sink_arg;
	writer->schema_json = pstrdup(schema_json);
	if (!pg_strong_random(writer->sync, sizeof(writer->sync)))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not generate a random avro sync marker")));
	initStringInfo(&writer->block);
	initStringInfo(&writer->out);
	MemoryContextSwitchTo(old);
	return writer;
}

/* AvroWriterAddMetadata adds a header key; only before the first record. */
void
AvroWriterAddMetadata(AvroWriter *writer, const char *key, const char *value)
{
	MemoryContext old;

	if (writer->header_written)
		elog(ERROR, "avro metadata \"%s\" added after the header was written", key);
	old = MemoryContextSwitchTo(writer->context);
	writer->meta_keys = lappend(writer->meta_keys, pstrdup(key));
	writer->meta_values = lappend(writer->meta_values, pstrdup(value));
	MemoryContextSwitchTo(old);
}

/* AvroMetaEntry appends one header map entry: a string key and a bytes value. */
static void
AvroMetaEntry(StringInfo buf, const char *key, const char *value)
{
	size_t		klen = strlen(key);
	size_t		vlen = strlen(value);

	AvroVarint(buf, (int64) klen);
	appendBinaryStringInfo(buf, key, (int) klen);
	AvroVarint(buf, (int64) vlen);
	appendBinaryStringInfo(buf, value, (int) vlen);
}

/* AvroWriteHeader writes magic, metadata and sync marker. */
static void
AvroWriteHeader(AvroWriter *writer)
{
	StringInfo	buf = &writer->out;
	ListCell   *k,
			   *v;

	resetStringInfo(buf);
	appendBinaryStringInfo(buf, "Obj\x01", 4);
	AvroVarint(buf, 2 + list_length(writer->meta_keys));
	AvroMetaEntry(buf, "avro.schema", writer->schema_json);
	AvroMetaEntry(buf, "avro.codec", writer->codec == AVRO_CODEC_DEFLATE ? "deflate" : "null");
	forboth(k, writer->meta_keys, v, writer->meta_values)
		AvroMetaEntry(buf, lfirst(k), lfirst(v));
	AvroVarint(buf, 0);
	appendBinaryStringInfo(buf, (const char *) writer->sync, 16);
	AvroSink(writer, buf->data, buf->len);
	writer->header_written = true;
}

/* AvroDeflate compresses src into dst as raw deflate (no zlib header). */
static void
AvroDeflate(StringInfo dst, const char *src, int len)
{
	z_stream	zs;
	int			rc;

	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8,
					 Z_DEFAULT_STRATEGY) != Z_OK)
		elog(ERROR, "could not initialize deflate");
	enlargeStringInfo(dst, (int) deflateBound(&zs, len));
	zs.next_in = (Bytef *) src;
	zs.avail_in = len;
	zs.next_out = (Bytef *) dst->data + dst->len;
	zs.avail_out = dst->maxlen - dst->len - 1;
	rc = deflate(&zs, Z_FINISH);
	dst->len += zs.total_out;
	deflateEnd(&zs);
	if (rc != Z_STREAM_END)
		elog(ERROR, "deflate failed: %d", rc);
}

/* AvroFlushBlock writes the buffered records as one block. */
static void
AvroFlushBlock(AvroWriter *writer)
{
	StringInfo	out = &writer->out;
	StringInfoData body;

	if (!writer->header_written)
		AvroWriteHeader(writer);
	if (writer->block_records == 0)
		return;

	resetStringInfo(out);
	AvroVarint(out, writer->block_records);
	if (writer->codec == AVRO_CODEC_DEFLATE)
	{
		initStringInfo(&body);
		AvroDeflate(&body, writer->block.data, writer->block.len);
		AvroVarint(out, body.len);
		appendBinaryStringInfo(out, body.data, body.len);
		pfree(body.data);
	}
	else
	{
		AvroVarint(out, writer->block.len);
		appendBinaryStringInfo(out, writer->block.data, writer->block.len);
	}
	appendBinaryStringInfo(out, (const char *) writer->sync, 16);
	AvroSink(writer, out->data, out->len);

	resetStringInfo(&writer->block);
	writer->block_records = 0;
}

/* AvroWriteBoolean encodes a boolean. */
void
AvroWriteBoolean(AvroWriter *writer, bool value)
{
	appendStringInfoChar(&writer->block, value ? 1 : 0);
}

/* AvroWriteInt encodes an int. */
void
AvroWriteInt(AvroWriter *writer, int32 value)
{
	AvroVarint(&writer->block, value);
}

/* AvroWriteLong encodes a long. */
void
AvroWriteLong(AvroWriter *writer, int64 value)
{
	AvroVarint(&writer->block, value);
}

/* AvroWriteFloat encodes a float, little-endian. */
void
AvroWriteFloat(AvroWriter *writer, float value)
{
	appendBinaryStringInfo(&writer->block, (const char *) &value, 4);
}

/* AvroWriteDouble encodes a double, little-endian. */
void
AvroWriteDouble(AvroWriter *writer, double value)
{
	appendBinaryStringInfo(&writer->block, (const char *) &value, 8);
}

/* AvroWriteBytes encodes length-prefixed bytes. */
void
AvroWriteBytes(AvroWriter *writer, const void *data, int32 len)
{
	AvroVarint(&writer->block, len);
	appendBinaryStringInfo(&writer->block, data, len);
}

/* AvroWriteString encodes a length-prefixed UTF-8 string. */
void
AvroWriteString(AvroWriter *writer, const char *value)
{
	AvroWriteBytes(writer, value, (int32) strlen(value));
}

/* AvroWriteFixed encodes a fixed: the bytes alone. */
void
AvroWriteFixed(AvroWriter *writer, const void *data, int32 len)
{
	appendBinaryStringInfo(&writer->block, data, len);
}

/* AvroWriteUnionBranch encodes the index of a union branch. */
void
AvroWriteUnionBranch(AvroWriter *writer, int branch)
{
	AvroVarint(&writer->block, branch);
}

/* AvroWriteArrayStart begins an array of count items, as one block. */
void
AvroWriteArrayStart(AvroWriter *writer, int64 count)
{
	if (count > 0)
		AvroVarint(&writer->block, count);
}

/* AvroWriteArrayEnd ends an array with the zero-count block. */
void
AvroWriteArrayEnd(AvroWriter *writer)
{
	AvroVarint(&writer->block, 0);
}

/* AvroWriteMapStart begins a map of count entries (key string, then value). */
void
AvroWriteMapStart(AvroWriter *writer, int64 count)
{
	AvroWriteArrayStart(writer, count);
}

/* AvroWriteMapEnd ends a map. */
void
AvroWriteMapEnd(AvroWriter *writer)
{
	AvroWriteArrayEnd(writer);
}

/* AvroRecordEnd ends one top-level record, writing a block when full. */
void
AvroRecordEnd(AvroWriter *writer)
{
	writer->block_records++;
	if (writer->block.len >= AVRO_BLOCK_BYTES)
		AvroFlushBlock(writer);
}

/* AvroWriterClose writes the header if needed and the last block. */
int64
AvroWriterClose(AvroWriter *writer)
{
	AvroFlushBlock(writer);
	return writer->file_size;
}

/* AvroWriterDestroy frees the writer. */
void
AvroWriterDestroy(AvroWriter *writer)
{
	MemoryContextDelete(writer->context);
}
