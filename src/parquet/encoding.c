/*-------------------------------------------------------------------------
 *
 * encoding.c
 *	  Byte buffers, the RLE / bit-packing hybrid, and PLAIN booleans.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "parquet/parquet_int.h"
#include "utils/memutils.h"

/* PqBufInit sets up an empty buffer with room for initial bytes. */
void
PqBufInit(PqBuf *buf, MemoryContext context, size_t initial)
{
	buf->context = context;
	buf->cap = Max(initial, 16);
	buf->data = MemoryContextAllocHuge(context, buf->cap);
	buf->len = 0;
}

/* PqBufGrow enlarges the buffer to hold extra more bytes, at least doubling. */
void
PqBufGrow(PqBuf *buf, size_t extra)
{
	size_t		need = buf->len + extra;
	size_t		newcap = Max(buf->cap, 16);

	while (newcap < need)
		newcap *= 2;
	if (newcap > MaxAllocHugeSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("parquet buffer exceeds the maximum allocation size")));
	if (buf->data == NULL)
		buf->data = MemoryContextAllocHuge(buf->context, newcap);
	else
		buf->data = repalloc_huge(buf->data, newcap);
	buf->cap = newcap;
}

/* PqBitWidth is the number of bits needed to store max_value. */
int
PqBitWidth(uint32 max_value)
{
	int			bits = 0;

	while (max_value)
	{
		bits++;
		max_value >>= 1;
	}
	return bits;
}

/* HybridVarint appends an unsigned LEB128 varint. */
static void
HybridVarint(PqBuf *out, uint32 v)
{
	PqBufReserve(out, 5);
	while (v >= 0x80)
	{
		out->data[out->len++] = (uint8) (v | 0x80);
		v >>= 7;
	}
	out->data[out->len++] = (uint8) v;
}

/*
 * The hybrid encoder, written once as a macro for 8-bit and 32-bit inputs.
 *
 * Runs of 8 or more equal values become RLE runs; everything else is packed
 * in groups of 8, LSB first.  Only the final group can be padded (with
 * zeros), so a reader that stops at the page's value count sees exactly
 * the input.
 */
#define DEFINE_HYBRID_ENCODER(fname, T) \
void \
fname(PqBuf *out, const T *values, uint32 n, int bit_width) \
{ \
	uint32		i = 0; \
	int			value_bytes = (bit_width + 7) / 8; \
	\
	if (bit_width == 0) \
	{ \
		/* every value is 0: one RLE run with no value bytes */ \
		if (n > 0) \
			HybridVarint(out, n << 1); \
		return; \
	} \
	while (i < n) \
	{ \
		uint32		j = i + 1; \
		\
		while (j < n && values[j] == values[i]) \
			j++; \
		if (j - i >= 8) \
		{ \
			uint32		v = values[i]; \
			\
			HybridVarint(out, (j - i) << 1); \
			for (int b = 0; b < value_bytes; b++) \
				PqBufAppendByte(out, (uint8) (v >> (8 * b))); \
			i = j; \
			continue; \
		} \
		{ \
			uint32		start = i; \
			uint32		groups; \
			uint64		acc = 0; \
			int			nbits = 0; \
			\
			/* extend by groups of 8 until a long run begins or input ends */ \
			while (i < n) \
			{ \
				uint32		k = i + 1; \
				\
				while (k < n && values[k] == values[i] && k - i < 8) \
					k++; \
				if (k - i >= 8) \
					break; \
				i += 8; \
				if ((i - start) / 8 >= 63) \
					break;		/* keep the header to one byte */ \
			} \
			if (i > n) \
				i = n; \
			groups = (i - start + 7) / 8; \
			HybridVarint(out, (groups << 1) | 1); \
			PqBufReserve(out, (size_t) groups * bit_width + 8); \
			for (uint32 k = start; k < start + groups * 8; k++) \
			{ \
				uint64		v = k < i ? (uint64) values[k] : 0; \
				\
				acc |= v << nbits; \
				nbits += bit_width; \
				while (nbits >= 8) \
				{ \
					out->data[out->len++] = (uint8) acc; \
					acc >>= 8; \
					nbits -= 8; \
				} \
			} \
			Assert(nbits == 0); \
		} \
	} \
}

DEFINE_HYBRID_ENCODER(PqEncodeHybrid8, uint8)
DEFINE_HYBRID_ENCODER(PqEncodeHybrid32, uint32)

/*
 * PqEncodeLevels appends levels as a v1 data page stores them: a 4-byte
 * little-endian length, then the hybrid encoding.
 */
void
PqEncodeLevels(PqBuf *out, const uint8 *levels, uint32 n, int max_level)
{
	size_t		len_pos = out->len;
	uint32		len;

	PqBufAppendUInt32LE(out, 0);
	PqEncodeHybrid8(out, levels, n, PqBitWidth((uint32) max_level));
	len = (uint32) (out->len - len_pos - 4);
	out->data[len_pos] = len & 0xff;
	out->data[len_pos + 1] = (len >> 8) & 0xff;
	out->data[len_pos + 2] = (len >> 16) & 0xff;
	out->data[len_pos + 3] = len >> 24;
}

/* PqEncodePlainBooleans packs booleans (one byte each in) 8 to a byte, LSB first. */
void
PqEncodePlainBooleans(PqBuf *out, const uint8 *values, uint32 n)
{
	uint32		nbytes = (n + 7) / 8;

	PqBufReserve(out, nbytes);
	memset(out->data + out->len, 0, nbytes);
	for (uint32 i = 0; i < n; i++)
		if (values[i])
			out->data[out->len + i / 8] |= (uint8) (1 << (i % 8));
	out->len += nbytes;
}
