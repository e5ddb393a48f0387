/*-------------------------------------------------------------------------
 *
 * avro.h
 *	  Avro object container file writer: the interface of src/avro/.
 *
 * The caller supplies the writer schema as JSON (with whatever attributes
 * it needs, such as Iceberg field ids, which stock avro-c would drop) and
 * any extra header metadata, then encodes each record with the Avro*
 * value calls in schema order and ends it with AvroRecordEnd.  Records are
 * gathered into blocks of bounded size; each block is compressed with the
 * file's codec and handed to the sink.
 *
 * The module knows nothing of Iceberg semantics.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ICEBERG_EXPORT_AVRO_H
#define ICEBERG_EXPORT_AVRO_H

#include "postgres.h"

typedef enum AvroCodec
{
	AVRO_CODEC_NULL,
	AVRO_CODEC_DEFLATE
} AvroCodec;

typedef struct AvroWriter AvroWriter;

/* A sink appends bytes somewhere; it reports failures with ereport. */
typedef void (*AvroSinkWrite) (void *arg, const void *data, size_t len);

/* AvroWriterCreate starts a file with schema_json as avro.schema. */
extern AvroWriter *AvroWriterCreate(const char *schema_json, AvroCodec codec,
									AvroSinkWrite sink, void *sink_arg);

/* AvroWriterAddMetadata adds a header key; only before the first record. */
extern void AvroWriterAddMetadata(AvroWriter *writer, const char *key,
								  const char *value);

/* Values, in schema order. */
extern void AvroWriteBoolean(AvroWriter *writer, bool value);
extern void AvroWriteInt(AvroWriter *writer, int32 value);
extern void AvroWriteLong(AvroWriter *writer, int64 value);
extern void AvroWriteFloat(AvroWriter *writer, float value);
extern void AvroWriteDouble(AvroWriter *writer, double value);
extern void AvroWriteBytes(AvroWriter *writer, const void *data, int32 len);
extern void AvroWriteString(AvroWriter *writer, const char *value);
extern void AvroWriteFixed(AvroWriter *writer, const void *data, int32 len);
/* AvroWriteUnionBranch selects a union branch; a null branch needs nothing more. */
extern void AvroWriteUnionBranch(AvroWriter *writer, int branch);
/* Arrays and maps: Start with the item count, the items, then End. */
extern void AvroWriteArrayStart(AvroWriter *writer, int64 count);
extern void AvroWriteArrayEnd(AvroWriter *writer);
extern void AvroWriteMapStart(AvroWriter *writer, int64 count);
extern void AvroWriteMapEnd(AvroWriter *writer);

/* AvroRecordEnd ends one top-level record. */
extern void AvroRecordEnd(AvroWriter *writer);

/* AvroWriterClose writes the last block; returns the file's size in bytes. */
extern int64 AvroWriterClose(AvroWriter *writer);

/* AvroWriterDestroy frees the writer. */
extern void AvroWriterDestroy(AvroWriter *writer);

#endif							/* ICEBERG_EXPORT_AVRO_H */
