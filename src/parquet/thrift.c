/*-------------------------------------------------------------------------
 *
 * thrift.c
 *	  Thrift compact protocol encoder for Parquet page headers and footers.
 *
 * Only what Parquet needs: structs, lists, i32/i64 fields, booleans and
 * binary.  Field ids are tracked per nesting level so that short-form
 * field headers (delta 1..15) are used wherever possible.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "parquet/parquet_int.h"

/* ThriftVarint appends an unsigned LEB128 varint. */
static void
ThriftVarint(PqBuf *buf, uint64 v)
{
	PqBufReserve(buf, 10);
	while (v >= 0x80)
	{
		buf->data[buf->len++] = (uint8) (v | 0x80);
		v >>= 7;
	}
	buf->data[buf->len++] = (uint8) v;
}

/* ThriftZigzag maps a signed integer to the zig-zag unsigned form. */
static inline uint64
ThriftZigzag(int64 v)
{
	return ((uint64) v << 1) ^ (uint64) (v >> 63);
}

/* ThriftFieldHeader appends a field header, short form when the delta allows. */
static void
ThriftFieldHeader(ThriftWriter *tw, int16 id, uint8 type)
{
	int			delta = id - tw->last_id[tw->depth];

	if (delta > 0 && delta <= 15)
		PqBufAppendByte(tw->buf, (uint8) ((delta << 4) | type));
	else
	{
		PqBufAppendByte(tw->buf, type);
		ThriftVarint(tw->buf, ThriftZigzag(id));
	}
	tw->last_id[tw->depth] = id;
}

/* ThriftInit starts encoding a top-level struct into buf. */
void
ThriftInit(ThriftWriter *tw, PqBuf *buf)
{
	tw->buf = buf;
	tw->depth = 0;
	tw->last_id[0] = 0;
}

/* ThriftFieldI32 appends an i32 (or enum) field. */
void
ThriftFieldI32(ThriftWriter *tw, int16 id, int32 value)
{
	ThriftFieldHeader(tw, id, THRIFT_I32);
	ThriftVarint(tw->buf, ThriftZigzag(value));
}

/* ThriftFieldI64 appends an i64 field. */
void
ThriftFieldI64(ThriftWriter *tw, int16 id, int64 value)
{
	ThriftFieldHeader(tw, id, THRIFT_I64);
	ThriftVarint(tw->buf, ThriftZigzag(value));
}

/* ThriftFieldBool appends a boolean field; the value lives in the type nibble. */
void
ThriftFieldBool(ThriftWriter *tw, int16 id, bool value)
{
	ThriftFieldHeader(tw, id, value ? THRIFT_BOOL_TRUE : THRIFT_BOOL_FALSE);
}

/* ThriftFieldBinary appends a binary field. */
void
ThriftFieldBinary(ThriftWriter *tw, int16 id, const void *data, int32 len)
{
	ThriftFieldHeader(tw, id, THRIFT_BINARY);
	ThriftVarint(tw->buf, (uint64) len);
	PqBufAppend(tw->buf, data, len);
}

/* ThriftFieldString appends a string field. */
void
ThriftFieldString(ThriftWriter *tw, int16 id, const char *str)
{
	ThriftFieldBinary(tw, id, str, (int32) strlen(str));
}

/* ThriftNest enters a nested struct, whose field ids start again at 0. */
static void
ThriftNest(ThriftWriter *tw)
{
	if (tw->depth + 1 >= (int) lengthof(tw->last_id))
		elog(ERROR, "thrift structures nested too deeply");
	tw->depth++;
	tw->last_id[tw->depth] = 0;
}

/* ThriftFieldStructBegin opens a struct-valued field. */
void
ThriftFieldStructBegin(ThriftWriter *tw, int16 id)
{
	ThriftFieldHeader(tw, id, THRIFT_STRUCT);
	ThriftNest(tw);
}

/* ThriftFieldListBegin opens a list field of size elements of elem_type. */
void
ThriftFieldListBegin(ThriftWriter *tw, int16 id, uint8 elem_type, int32 size)
{
	ThriftFieldHeader(tw, id, THRIFT_LIST);
	if (size <= 14)
		PqBufAppendByte(tw->buf, (uint8) ((size << 4) | elem_type));
	else
	{
		PqBufAppendByte(tw->buf, 0xF0 | elem_type);
		ThriftVarint(tw->buf, (uint64) size);
	}
}

/* ThriftListStructBegin opens a struct that is an element of a list. */
void
ThriftListStructBegin(ThriftWriter *tw)
{
	ThriftNest(tw);
}

/* ThriftListI32 appends an i32 list element. */
void
ThriftListI32(ThriftWriter *tw, int32 value)
{
	ThriftVarint(tw->buf, ThriftZigzag(value));
}

/* ThriftListString appends a string list element. */
void
ThriftListString(ThriftWriter *tw, const char *str)
{
	size_t		len = strlen(str);

	ThriftVarint(tw->buf, len);
	PqBufAppend(tw->buf, str, len);
}

/* ThriftStructEnd writes the stop byte and leaves the current struct. */
void
ThriftStructEnd(ThriftWriter *tw)
{
	PqBufAppendByte(tw->buf, 0);
	if (tw->depth > 0)
		tw->depth--;
}

/* ThriftEmptyStructField appends a field holding an empty struct. */
void
ThriftEmptyStructField(ThriftWriter *tw, int16 id)
{
	ThriftFieldStructBegin(tw, id);
	ThriftStructEnd(tw);
}
