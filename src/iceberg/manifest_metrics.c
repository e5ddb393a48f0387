/*-------------------------------------------------------------------------
 *
 * manifest_metrics.c
 *	  Data file metrics from Parquet statistics, as Iceberg Java computes them.
 *
 * Each Parquet leaf gives its column size; top-level and struct leaves also
 * their value, null and (for floats) NaN counts and lower and upper bounds
 * in the single-value binary serialization of the spec's Appendix D:
 * little-endian numbers, UTF-8 strings, big-endian uuids, and decimals as
 * the minimal big-endian two's complement of the unscaled value.  String
 * and binary bounds are truncated as in the default metrics mode
 * truncate(16).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "iceberg/manifest.h"
#include "mb/pg_wchar.h"

/* IcebergUtf8Prefix is the byte length of the first n code points, or -1. */
static int32
IcebergUtf8Prefix(const uint8 *s, int32 len, int n, int *ncodepoints)
{
	int32		off = 0;
	int			count = 0;

	while (off < len && count < n)
	{
		int			clen = pg_utf_mblen(s + off);

		if (off + clen > len || !pg_utf8_islegal(s + off, clen))
			return -1;
		off += clen;
		count++;
	}
	*ncodepoints = count;
	return off;
}

/*
 * IcebergTruncateStringMax makes the upper bound of a string longer than
 * limit code points: the first limit code points with the last one that
 * can be incremented incremented (skipping surrogates), or false.
 */
static bool
IcebergTruncateStringMax(const uint8 *s, int32 prefix, int npoints,
						 uint8 **out, int32 *outlen)
{
	pg_wchar   *cps = palloc(sizeof(pg_wchar) * (npoints + 1));
	int			n = pg_encoding_mb2wchar_with_len(PG_UTF8, (const char *) s, cps, prefix);

	for (int i = n - 1; i >= 0; i--)
	{
		pg_wchar	next = cps[i] + 1;
		uint8	   *buf;
		int32		pos = 0;

		if (next >= 0xD800 && next <= 0xDFFF)
			next = 0xE000;
		if (next > 0x10FFFF)
			continue;
		buf = palloc((i + 1) * MAX_MULTIBYTE_CHAR_LEN);
		for (int j = 0; j < i; j++)
		{
			unicode_to_utf8(cps[j], buf + pos);
			pos += pg_utf_mblen(buf + pos);
		}
		unicode_to_utf8(next, buf + pos);
		pos += pg_utf_mblen(buf + pos);
		*out = buf;
		*outlen = pos;
		return true;
	}
	return false;
}

/*
 * IcebergTruncateBinaryMax makes the upper bound of binary longer than
 * limit bytes: the first limit bytes with the last byte that is not 0xff
 * incremented and the bytes after it dropped, or false.
 */
static bool
IcebergTruncateBinaryMax(const uint8 *b, int32 limit, uint8 **out, int32 *outlen)
{
	for (int32 i = limit - 1; i >= 0; i--)
	{
		if (b[i] != 0xFF)
		{
			uint8	   *buf = palloc(i + 1);

			memcpy(buf, b, i + 1);
			buf[i]++;
			*out = buf;
			*outlen = i + 1;
			return true;
		}
	}
	return false;
}

/* IcebergCopyBytes returns a palloc'd copy of len bytes, in *out. */
static bool
IcebergCopyBytes(const uint8 *value, int32 len, uint8 **out, int32 *outlen)
{
	*out = palloc(Max(len, 1));
	memcpy(*out, value, len);
	*outlen = len;
	return true;
}

/*
 * IcebergDecimalBytes writes the unscaled value of a Parquet decimal bound
 * (little-endian INT32/INT64 for precision <= 18, else big-endian FLBA) as
 * the minimal big-endian two's complement bytes.
 */
static bool
IcebergDecimalBytes(const IcebergType *type, const uint8 *value, int32 len,
					uint8 **out, int32 *outlen)
{
	uint8		be[16];
	int32		start = 0;

	if (len < 1 || len > 16)
		elog(ERROR, "invalid parquet decimal bound of %d bytes", len);
	if (type->precision <= 18)
	{
		if (len != (type->precision <= 9 ? 4 : 8))
			elog(ERROR, "invalid parquet decimal(%d,%d) bound of %d bytes",
				 type->precision, type->scale, len);
		for (int32 i = 0; i < len; i++)
			be[i] = value[len - 1 - i];
	}
	else
		memcpy(be, value, len);

	/* drop leading bytes that only repeat the sign */
	while (start < len - 1 &&
		   ((be[start] == 0x00 && (be[start + 1] & 0x80) == 0) ||
			(be[start] == 0xFF && (be[start + 1] & 0x80) != 0)))
		start++;
	return IcebergCopyBytes(be + start, len - start, out, outlen);
}

/*
 * IcebergSingleValueFromParquet converts a Parquet PLAIN bound to Iceberg's
 * single-value serialization, truncated as a lower or an upper bound.
 */
bool
IcebergSingleValueFromParquet(const IcebergType *type, const uint8 *value,
							  int32 len, bool upper, uint8 **out, int32 *outlen)
{
	switch (type->kind)
	{
		case ICEBERG_TYPE_BOOLEAN:
			{
				uint8		b = value[0] ? 1 : 0;

				return IcebergCopyBytes(&b, 1, out, outlen);
			}
		case ICEBERG_TYPE_INT:
		case ICEBERG_TYPE_DATE:
			if (len != 4)
				elog(ERROR, "invalid parquet INT32 bound of %d bytes", len);
			return IcebergCopyBytes(value, len, out, outlen);
		case ICEBERG_TYPE_LONG:
		case ICEBERG_TYPE_TIME:
		case ICEBERG_TYPE_TIMESTAMP:
		case ICEBERG_TYPE_TIMESTAMPTZ:
			if (len != 8)
				elog(ERROR, "invalid parquet INT64 bound of %d bytes", len);
			return IcebergCopyBytes(value, len, out, outlen);
		case ICEBERG_TYPE_FLOAT:
			{
				float		f;

				if (len != 4)
					elog(ERROR, "invalid parquet FLOAT bound of %d bytes", len);
				memcpy(&f, value, 4);
				/* -0.0 orders before +0.0: a zero lower bound is -0.0 */
				if (f == 0.0f)
					f = upper ? 0.0f : -0.0f;
				return IcebergCopyBytes((const uint8 *) &f, 4, out, outlen);
			}
		case ICEBERG_TYPE_DOUBLE:
			{
				double		d;

				if (len != 8)
					elog(ERROR, "invalid parquet DOUBLE bound of %d bytes", len);
				memcpy(&d, value, 8);
				if (d == 0.0)
					d = upper ? 0.0 : -0.0;
				return IcebergCopyBytes((const uint8 *) &d, 8, out, outlen);
			}
		case ICEBERG_TYPE_DECIMAL:
			return IcebergDecimalBytes(type, value, len, out, outlen);
		case ICEBERG_TYPE_STRING:
			{
				int			npoints;
				int32		prefix = IcebergUtf8Prefix(value, len,
													   ICEBERG_BOUND_TRUNCATE_LENGTH,
													   &npoints);

				if (prefix < 0)
					return false;	/* not UTF-8: no bound rather than a wrong one */
				if (prefix == len)
					return IcebergCopyBytes(value, len, out, outlen);
				if (!upper)
					return IcebergCopyBytes(value, prefix, out, outlen);
				return IcebergTruncateStringMax(value, prefix, npoints, out, outlen);
			}
		case ICEBERG_TYPE_BINARY:
			if (len <= ICEBERG_BOUND_TRUNCATE_LENGTH)
				return IcebergCopyBytes(value, len, out, outlen);
			if (!upper)
				return IcebergCopyBytes(value, ICEBERG_BOUND_TRUNCATE_LENGTH, out, outlen);
			return IcebergTruncateBinaryMax(value, ICEBERG_BOUND_TRUNCATE_LENGTH, out, outlen);
		case ICEBERG_TYPE_UUID:
		case ICEBERG_TYPE_FIXED:
			return IcebergCopyBytes(value, len, out, outlen);
		case ICEBERG_TYPE_STRUCT:
		case ICEBERG_TYPE_LIST:
		case ICEBERG_TYPE_MAP:
			break;
	}
	elog(ERROR, "no single-value serialization for iceberg type %s",
		 IcebergTypeToString(type));
	return false;				/* keep compiler quiet */
}

/*
 * IcebergFindLeaf finds the type of the field, element, key or value with
 * id in type, and whether it is inside a list or map.
 */
static bool
IcebergFindLeaf(const IcebergType *type, int32 id, bool repeated,
				const IcebergType **found, bool *found_repeated)
{
	switch (type->kind)
	{
		case ICEBERG_TYPE_STRUCT:
			for (int i = 0; i < type->nfields; i++)
			{
				if (type->fields[i].id == id)
				{
					*found = type->fields[i].type;
					*found_repeated = repeated;
					return true;
				}
				if (IcebergFindLeaf(type->fields[i].type, id, repeated, found, found_repeated))
					return true;
			}
			return false;
		case ICEBERG_TYPE_LIST:
		case ICEBERG_TYPE_MAP:
			if (type->kind == ICEBERG_TYPE_MAP && type->key_id == id)
			{
				*found = type->key;
				*found_repeated = true;
				return true;
			}
			if (type->element_id == id)
			{
				*found = type->element;
				*found_repeated = true;
				return true;
			}
			return (type->kind == ICEBERG_TYPE_MAP &&
					IcebergFindLeaf(type->key, id, true, found, found_repeated)) ||
				IcebergFindLeaf(type->element, id, true, found, found_repeated);
		default:
			return false;
	}
}

/*
 * IcebergDataFileFromParquetStats fills in a data file's metrics from the
 * whole-file statistics of each Parquet leaf.
 */
void
IcebergDataFileFromParquetStats(IcebergDataFile *file, const IcebergType *schema,
								const ParquetColumnStats *stats, int nstats)
{
	file->column_sizes = palloc0(sizeof(IcebergCountMetric) * Max(nstats, 1));
	file->value_counts = palloc0(sizeof(IcebergCountMetric) * Max(nstats, 1));
	file->null_value_counts = palloc0(sizeof(IcebergCountMetric) * Max(nstats, 1));
	file->nan_value_counts = palloc0(sizeof(IcebergCountMetric) * Max(nstats, 1));
	file->lower_bounds = palloc0(sizeof(IcebergBoundMetric) * Max(nstats, 1));
	file->upper_bounds = palloc0(sizeof(IcebergBoundMetric) * Max(nstats, 1));
	file->ncolumn_sizes = file->nvalue_counts = file->nnull_value_counts = 0;
	file->nnan_value_counts = file->nlower_bounds = file->nupper_bounds = 0;

	for (int i = 0; i < nstats; i++)
	{
		const ParquetColumnStats *st = &stats[i];
		const IcebergType *type;
		bool		repeated;
		uint8	   *bound;
		int32		boundlen;

		if (!IcebergFindLeaf(schema, st->field_id, false, &type, &repeated) ||
			!IcebergTypeIsPrimitive(type))
			elog(ERROR, "parquet leaf \"%s\" has field id %d, which is no primitive of the schema",
				 st->path, st->field_id);

		file->column_sizes[file->ncolumn_sizes++] =
			(IcebergCountMetric) {st->field_id, st->compressed_bytes};

		/*
		 * Like Iceberg Java, no counts or bounds inside lists and maps: the
		 * Parquet counts are of levels, which include empty and null lists.
		 */
		if (repeated)
			continue;

		file->value_counts[file->nvalue_counts++] =
			(IcebergCountMetric) {st->field_id, st->value_count};
		file->null_value_counts[file->nnull_value_counts++] =
			(IcebergCountMetric) {st->field_id, st->null_count};
		if (type->kind == ICEBERG_TYPE_FLOAT || type->kind == ICEBERG_TYPE_DOUBLE)
			file->nan_value_counts[file->nnan_value_counts++] =
				(IcebergCountMetric) {st->field_id, st->nan_count};

		if (!st->has_min_max)
			continue;
		if (IcebergSingleValueFromParquet(type, st->min, st->min_len, false, &bound, &boundlen))
			file->lower_bounds[file->nlower_bounds++] =
				(IcebergBoundMetric) {st->field_id, bound, boundlen};
		if (IcebergSingleValueFromParquet(type, st->max, st->max_len, true, &bound, &boundlen))
			file->upper_bounds[file->nupper_bounds++] =
				(IcebergBoundMetric) {st->field_id, bound, boundlen};
	}
}
