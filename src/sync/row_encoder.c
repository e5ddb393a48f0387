/*-------------------------------------------------------------------------
 *
 * row_encoder.c
 *	  Writes Postgres tuples as Parquet rows, following the column plans of
 *	  pg_types.c.
 *
 * The plans, the Iceberg schema and the Parquet schema are made once per
 * result.  Per value, fixed-width types are written straight from their
 * Datum, strings and binaries as pointers into the (detoasted if needed)
 * varlena, enum labels come from a small cache, and output functions are
 * called through an FmgrInfo prepared per column.  Detoasting, output
 * functions and encoding conversion allocate in CurrentMemoryContext,
 * which the caller resets every batch of rows.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_enum.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "sync/sync.h"
#include "utils/array.h"
#include "utils/arrayaccess.h"
#include "utils/date.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

/* One cached enum label, keyed by the pg_enum row's oid. */
typedef struct SyncEnumLabel
{
	Oid			oid;
	int32		len;
	char	   *label;			/* UTF-8, in the encoder's context */
} SyncEnumLabel;

struct SyncRowEncoder
{
	MemoryContext context;
	SyncTuplePlan *plan;
	ParquetSchema *parquet_schema;
	IcebergParquetNode *parquet_columns;
	HTAB	   *enum_labels;	/* made on first use */
	bool		convert_utf8;	/* server encoding is not UTF-8 or SQL_ASCII */
};

static void SyncWriteValue(SyncRowEncoder *encoder, ParquetWriter *writer,
						   SyncValuePlan *plan, Datum value, bool isnull);

/* SyncBindNodes records the Parquet node of a plan and of its children. */
static void
SyncBindNodes(SyncValuePlan *plan, const IcebergParquetNode *node)
{
	plan->node = node->node;
	if (plan->kind == SYNC_VALUE_ARRAY)
		SyncBindNodes(plan->element, &node->children[0]);
	else if (plan->kind == SYNC_VALUE_COMPOSITE)
	{
		if (node->nchildren != plan->nfields)
			elog(ERROR, "parquet struct of \"%s\" has %d fields, expected %d",
				 plan->path, node->nchildren, plan->nfields);
		for (int i = 0; i < plan->nfields; i++)
			SyncBindNodes(&plan->fields[i], &node->children[i]);
	}
}

/* SyncRowEncoderCreate plans a result's columns and builds its schemas. */
SyncRowEncoder *
SyncRowEncoderCreate(TupleDesc tupdesc, MemoryContext parent)
{
	MemoryContext context = AllocSetContextCreate(parent, "iceberg_export row encoder",
												  ALLOCSET_DEFAULT_SIZES);
	MemoryContext oldcxt = MemoryContextSwitchTo(context);
	SyncRowEncoder *encoder = palloc0(sizeof(SyncRowEncoder));
	int			encoding = GetDatabaseEncoding();

	encoder->context = context;
	encoder->convert_utf8 = encoding != PG_UTF8 && encoding != PG_SQL_ASCII;
	encoder->plan = SyncPlanTupleDesc(tupdesc);
	encoder->parquet_schema = IcebergSchemaToParquet(encoder->plan->schema, context,
													 &encoder->parquet_columns);
	for (int i = 0; i < encoder->plan->ncolumns; i++)
		SyncBindNodes(&encoder->plan->columns[i], &encoder->parquet_columns[i]);

	MemoryContextSwitchTo(oldcxt);
	return encoder;
}

/* SyncRowEncoderIcebergSchema is the Iceberg schema of the rows. */
const IcebergType *
SyncRowEncoderIcebergSchema(const SyncRowEncoder *encoder)
{
	return encoder->plan->schema;
}

/* SyncRowEncoderParquetSchema is the Parquet schema of the rows. */
ParquetSchema *
SyncRowEncoderParquetSchema(const SyncRowEncoder *encoder)
{
	return encoder->parquet_schema;
}

/*
 * SyncRowEncoderCheckTupleDesc errors out unless tupdesc has the columns,
 * of the same types, that the encoder was made for.
 */
void
SyncRowEncoderCheckTupleDesc(const SyncRowEncoder *encoder, TupleDesc tupdesc)
{
	const SyncTuplePlan *plan = encoder->plan;

	for (int i = 0; i < plan->ncolumns; i++)
	{
		int			attnum = plan->attnums[i];

		if (attnum >= tupdesc->natts ||
			TupleDescAttr(tupdesc, attnum)->atttypid != plan->columns[i].typid)
			elog(ERROR, "result column \"%s\" changed type after planning",
				 plan->columns[i].path);
	}
}

/* SyncWriteString writes a string in the server encoding as UTF-8. */
static inline void
SyncWriteString(SyncRowEncoder *encoder, ParquetWriter *writer, ParquetNodeId node,
				const char *data, int len)
{
	if (unlikely(encoder->convert_utf8) && len > 0)
	{
		const char *converted = pg_server_to_any(data, len, PG_UTF8);

		if (converted != data)
		{
			data = converted;
			len = strlen(converted);
		}
	}
	ParquetWriteBytes(writer, node, data, len);
}

/* SyncEnumLookup finds an enum value's label, caching it by oid. */
static const SyncEnumLabel *
SyncEnumLookup(SyncRowEncoder *encoder, Oid oid)
{
	SyncEnumLabel *entry;
	HeapTuple	tup;
	const char *label;
	bool		found;

	if (encoder->enum_labels == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(SyncEnumLabel);
		ctl.hcxt = encoder->context;
		encoder->enum_labels = hash_create("iceberg_export enum labels", 64, &ctl,
										   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	entry = hash_search(encoder->enum_labels, &oid, HASH_FIND, NULL);
	if (entry != NULL)
		return entry;

	tup = SearchSysCache1(ENUMOID, ObjectIdGetDatum(oid));
	if (!HeapTupleIsValid(tup))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid internal value for enum: %u", oid)));
	label = NameStr(((Form_pg_enum) GETSTRUCT(tup))->enumlabel);
	if (encoder->convert_utf8)
		label = pg_server_to_any(label, strlen(label), PG_UTF8);

	entry = hash_search(encoder->enum_labels, &oid, HASH_ENTER, &found);
	entry->label = MemoryContextStrdup(encoder->context, label);
	entry->len = strlen(entry->label);
	ReleaseSysCache(tup);
	return entry;
}

/*
 * SyncWriteChar writes a "char" as its output function does: the byte
 * itself, nothing for \0, and a backslash and three octal digits for bytes
 * with the high bit set.
 */
static void
SyncWriteChar(ParquetWriter *writer, ParquetNodeId node, char ch)
{
	unsigned char uch = (unsigned char) ch;
	char		buf[4];

	if (IS_HIGHBIT_SET(ch))
	{
		buf[0] = '\\';
		buf[1] = '0' + (uch >> 6);
		buf[2] = '0' + ((uch >> 3) & 07);
		buf[3] = '0' + (uch & 07);
		ParquetWriteBytes(writer, node, buf, 4);
	}
	else
		ParquetWriteBytes(writer, node, &ch, ch == '\0' ? 0 : 1);
}

/* SyncWriteArray writes a 1-D array as a list. */
static void
SyncWriteArray(SyncRowEncoder *encoder, ParquetWriter *writer, SyncValuePlan *plan,
			   Datum value)
{
	AnyArrayType *array = DatumGetAnyArrayP(value);
	int			ndim = AARR_NDIM(array);
	SyncValuePlan *element = plan->element;

	if (ndim > 1)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("column \"%s\" has a multidimensional array", plan->path),
				 errdetail("The value has %d dimensions; Iceberg lists have one.", ndim),
				 errhint("Cast the column to text, or unnest the array.")));

	ParquetListBegin(writer, plan->node);
	if (ndim == 1)
	{
		int			nitems = AARR_DIMS(array)[0];
		array_iter	iter;

		array_iter_setup(&iter, array);
		for (int i = 0; i < nitems; i++)
		{
			bool		isnull;
			Datum		elem = array_iter_next(&iter, &isnull, i, plan->elmlen,
											   plan->elmbyval, plan->elmalign);

			ParquetListNextItem(writer);
			SyncWriteValue(encoder, writer, element, elem, isnull);
		}
	}
	ParquetListEnd(writer);
}

/* SyncWriteComposite writes a composite value as a struct. */
static void
SyncWriteComposite(SyncRowEncoder *encoder, ParquetWriter *writer, SyncValuePlan *plan,
				   Datum value)
{
	HeapTupleHeader th = DatumGetHeapTupleHeader(value);
	HeapTupleData tuple;

	if (plan->basetypid == RECORDOID &&
		HeapTupleHeaderGetTypMod(th) != plan->basetypmod)
		elog(ERROR, "record in column \"%s\" has typmod %d, expected %d",
			 plan->path, HeapTupleHeaderGetTypMod(th), plan->basetypmod);

	tuple.t_len = HeapTupleHeaderGetDatumLength(th);
	ItemPointerSetInvalid(&tuple.t_self);
	tuple.t_tableOid = InvalidOid;
	tuple.t_data = th;
	heap_deform_tuple(&tuple, plan->tupdesc, plan->values, plan->isnull);

	for (int i = 0; i < plan->nfields; i++)
	{
		int			attnum = plan->attnums[i];

		SyncWriteValue(encoder, writer, &plan->fields[i], plan->values[attnum],
					   plan->isnull[attnum]);
	}
}

/* SyncWriteValue writes one value (or null) to the plan's Parquet node. */
static void
SyncWriteValue(SyncRowEncoder *encoder, ParquetWriter *writer, SyncValuePlan *plan,
			   Datum value, bool isnull)
{
	ParquetNodeId node = plan->node;

	if (isnull)
	{
		ParquetWriteNull(writer, node);
		return;
	}

	switch (plan->kind)
	{
		case SYNC_VALUE_BOOL:
			ParquetWriteBool(writer, node, DatumGetBool(value));
			break;
		case SYNC_VALUE_INT2:
			ParquetWriteInt32(writer, node, DatumGetInt16(value));
			break;
		case SYNC_VALUE_INT4:
			ParquetWriteInt32(writer, node, DatumGetInt32(value));
			break;
		case SYNC_VALUE_INT8:
			ParquetWriteInt64(writer, node, DatumGetInt64(value));
			break;
		case SYNC_VALUE_FLOAT4:
			ParquetWriteFloat(writer, node, DatumGetFloat4(value));
			break;
		case SYNC_VALUE_FLOAT8:
			ParquetWriteDouble(writer, node, DatumGetFloat8(value));
			break;
		case SYNC_VALUE_NUMERIC:
			ParquetWriteDecimal(writer, node, SyncNumericToUnscaled(value, plan));
			break;
		case SYNC_VALUE_DATE:
			ParquetWriteInt32(writer, node,
							  SyncDateToIceberg(DatumGetDateADT(value), plan));
			break;
		case SYNC_VALUE_TIME:
			ParquetWriteInt64(writer, node, DatumGetTimeADT(value));
			break;
		case SYNC_VALUE_TIMESTAMP:
			ParquetWriteInt64(writer, node,
							  SyncTimestampToIceberg(DatumGetTimestamp(value), plan));
			break;
		case SYNC_VALUE_UUID:
			ParquetWriteBytes(writer, node, DatumGetUUIDP(value)->data, UUID_LEN);
			break;
		case SYNC_VALUE_BYTEA:
		case SYNC_VALUE_TEXT:
			{
				struct varlena *v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(value));

				if (plan->kind == SYNC_VALUE_BYTEA)
					ParquetWriteBytes(writer, node, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
				else
					SyncWriteString(encoder, writer, node, VARDATA_ANY(v),
									VARSIZE_ANY_EXHDR(v));
				break;
			}
		case SYNC_VALUE_NAME:
			{
				const char *name = NameStr(*DatumGetName(value));

				SyncWriteString(encoder, writer, node, name, strnlen(name, NAMEDATALEN));
				break;
			}
		case SYNC_VALUE_CHAR:
			SyncWriteChar(writer, node, DatumGetChar(value));
			break;
		case SYNC_VALUE_ENUM:
			{
				const SyncEnumLabel *label = SyncEnumLookup(encoder, DatumGetObjectId(value));

				ParquetWriteBytes(writer, node, label->label, label->len);
				break;
			}
		case SYNC_VALUE_OUTPUT:
			{
				char	   *str = OutputFunctionCall(&plan->outfunc, value);

				SyncWriteString(encoder, writer, node, str, strlen(str));
				break;
			}
		case SYNC_VALUE_ARRAY:
			check_stack_depth();
			SyncWriteArray(encoder, writer, plan, value);
			break;
		case SYNC_VALUE_COMPOSITE:
			check_stack_depth();
			SyncWriteComposite(encoder, writer, plan, value);
			break;
	}
}

/* SyncRowEncoderWriteSlot writes one tuple as one Parquet row. */
void
SyncRowEncoderWriteSlot(SyncRowEncoder *encoder, ParquetWriter *writer,
						TupleTableSlot *slot)
{
	SyncTuplePlan *plan = encoder->plan;

	slot_getallattrs(slot);
	ParquetRowBegin(writer);
	for (int i = 0; i < plan->ncolumns; i++)
	{
		int			attnum = plan->attnums[i];

		SyncWriteValue(encoder, writer, &plan->columns[i], slot->tts_values[attnum],
					   slot->tts_isnull[attnum]);
	}
	ParquetRowEnd(writer);
}

/* SyncRowEncoderDestroy frees the encoder's context. */
void
SyncRowEncoderDestroy(SyncRowEncoder *encoder)
{
	MemoryContextDelete(encoder->context);
}
