/*-------------------------------------------------------------------------
 *
 * stats.c
 *	  Column statistics: min, max, null and NaN counts, in type order.
 *
 * Bounds are kept as PLAIN values without a length prefix.  The orders are
 * Parquet's TYPE_ORDER: signed for integers and int-backed decimals and
 * dates and times, unsigned byte-wise for strings, binary, uuid and fixed,
 * signed by value for FIXED_LEN_BYTE_ARRAY decimals, false < true for
 * booleans, and IEEE order without NaN for floats.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "parquet/parquet_int.h"

/* PqStatsInit sets up empty statistics. */
void
PqStatsInit(PqStats *stats, MemoryContext context)
{
	stats->null_count = 0;
	stats->nan_count = 0;
	stats->has_min_max = false;
	PqBufInit(&stats->min, context, 16);
	PqBufInit(&stats->max, context, 16);
}

/* PqStatsReset empties the statistics, keeping their memory. */
void
PqStatsReset(PqStats *stats)
{
	stats->null_count = 0;
	stats->nan_count = 0;
	stats->has_min_max = false;
	stats->min.len = 0;
	stats->max.len = 0;
}

/* PqCompareBytes compares byte strings unsigned, shorter prefix first. */
static int
PqCompareBytes(const uint8 *a, int32 alen, const uint8 *b, int32 blen)
{
	int			c = memcmp(a, b, Min(alen, blen));

	if (c != 0)
		return c;
	return (alen > blen) - (alen < blen);
}

/* PqCompare compares two PLAIN values of node's type; <0, 0 or >0. */
static int
PqCompare(const ParquetNode *node, const uint8 *a, int32 alen,
		  const uint8 *b, int32 blen)
{
	switch (node->physical)
	{
		case PQ_PHYS_BOOLEAN:
			return (int) a[0] - (int) b[0];
		case PQ_PHYS_INT32:
			{
				int32		x,
							y;

				memcpy(&x, a, 4);
				memcpy(&y, b, 4);
				return (x > y) - (x < y);
			}
		case PQ_PHYS_INT64:
			{
				int64		x,
							y;

				memcpy(&x, a, 8);
				memcpy(&y, b, 8);
				return (x > y) - (x < y);
			}
		case PQ_PHYS_FLOAT:
			{
				float		x,
							y;

				memcpy(&x, a, 4);
				memcpy(&y, b, 4);
				return (x > y) - (x < y);
			}
		case PQ_PHYS_DOUBLE:
			{
				double		x,
							y;

				memcpy(&x, a, 8);
				memcpy(&y, b, 8);
				return (x > y) - (x < y);
			}
		case PQ_PHYS_FLBA:
			if (node->type == PARQUET_TYPE_DECIMAL)
			{
				/* big-endian two's complement: the sign byte compares signed */
				int			c = (int) (int8) a[0] - (int) (int8) b[0];

				if (c != 0)
					return c;
				return memcmp(a + 1, b + 1, alen - 1);
			}
			return memcmp(a, b, alen);
		default:
			return PqCompareBytes(a, alen, b, blen);
	}
}

/* PqStatsSet copies value into a bound. */
static inline void
PqStatsSet(PqBuf *bound, const uint8 *value, int32 len)
{
	bound->len = 0;
	PqBufAppend(bound, value, len);
}

/* PqStatsUpdate takes one non-null value into account. */
void
PqStatsUpdate(PqStats *stats, const ParquetNode *node, const uint8 *value, int32 len)
{
	if (node->physical == PQ_PHYS_FLOAT || node->physical == PQ_PHYS_DOUBLE)
	{
		bool		nan;

		if (node->physical == PQ_PHYS_FLOAT)
		{
			float		f;

			memcpy(&f, value, 4);
			nan = isnan(f);
		}
		else
		{
			double		d;

			memcpy(&d, value, 8);
			nan = isnan(d);
		}
		if (nan)
		{
			stats->nan_count++;
			return;
		}
	}

	if (!stats->has_min_max)
	{
		PqStatsSet(&stats->min, value, len);
		PqStatsSet(&stats->max, value, len);
		stats->has_min_max = true;
		return;
	}
	if (PqCompare(node, value, len, stats->min.data, stats->min.len) < 0)
		PqStatsSet(&stats->min, value, len);
	else if (PqCompare(node, value, len, stats->max.data, stats->max.len) > 0)
		PqStatsSet(&stats->max, value, len);
}

/* PqStatsMerge folds the statistics of a chunk into the file's. */
void
PqStatsMerge(PqStats *into, const PqStats *from, const ParquetNode *node)
{
	into->null_count += from->null_count;
	into->nan_count += from->nan_count;
	if (!from->has_min_max)
		return;
	if (!into->has_min_max)
	{
		PqStatsSet(&into->min, from->min.data, from->min.len);
		PqStatsSet(&into->max, from->max.data, from->max.len);
		into->has_min_max = true;
		return;
	}
	if (PqCompare(node, from->min.data, from->min.len, into->min.data, into->min.len) < 0)
		PqStatsSet(&into->min, from->min.data, from->min.len);
	if (PqCompare(node, from->max.data, from->max.len, into->max.data, into->max.len) > 0)
		PqStatsSet(&into->max, from->max.data, from->max.len);
}

/*
 * PqFloatBound writes a float bound, with zero as -0.0 for a minimum and
 * +0.0 for a maximum, as the Parquet spec asks.
 */
static void
PqFloatBound(ThriftWriter *tw, int16 id, const ParquetNode *node,
			 const PqBuf *bound, bool is_min)
{
	if (node->physical == PQ_PHYS_FLOAT)
	{
		float		f;

		memcpy(&f, bound->data, 4);
		if (f == 0.0f)
			f = is_min ? -0.0f : 0.0f;
		ThriftFieldBinary(tw, id, &f, 4);
	}
	else
	{
		double		d;

		memcpy(&d, bound->data, 8);
		if (d == 0.0)
			d = is_min ? -0.0 : 0.0;
		ThriftFieldBinary(tw, id, &d, 8);
	}
}

/*
 * PqStatsWriteThrift writes a Statistics struct as field id.  Bounds longer
 * than PQ_MAX_STAT_BYTES are left out; the null count is always written.
 */
void
PqStatsWriteThrift(ThriftWriter *tw, int16 id, const PqStats *stats,
				   const ParquetNode *node)
{
	bool		is_float = node->physical == PQ_PHYS_FLOAT ||
		node->physical == PQ_PHYS_DOUBLE;
	bool		bounds = stats->has_min_max &&
		stats->min.len <= PQ_MAX_STAT_BYTES &&
		stats->max.len <= PQ_MAX_STAT_BYTES;

	ThriftFieldStructBegin(tw, id);
	ThriftFieldI64(tw, 3, stats->null_count);
	if (bounds)
	{
		if (is_float)
		{
			PqFloatBound(tw, 5, node, &stats->max, false);
			PqFloatBound(tw, 6, node, &stats->min, true);
		}
		else
		{
			ThriftFieldBinary(tw, 5, stats->max.data, (int32) stats->max.len);
			ThriftFieldBinary(tw, 6, stats->min.data, (int32) stats->min.len);
		}
		ThriftFieldBool(tw, 7, true);
		ThriftFieldBool(tw, 8, true);
	}
	if (is_float)
		ThriftFieldI64(tw, 9, stats->nan_count);
	ThriftStructEnd(tw);
}
