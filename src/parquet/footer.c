/*-------------------------------------------------------------------------
 *
 * footer.c
 *	  Thrift structures of the file: schema elements and page headers.
 *
 * The schema is written depth-first, root first.  A LIST node becomes the
 * three-level form: the annotated group, a repeated group named "list"
 * (no field id), and the element.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "parquet/parquet_int.h"

/* PqSchemaElementCount is the number of SchemaElements the schema needs. */
int
PqSchemaElementCount(const ParquetSchema *schema)
{
	int			n = schema->nnodes;

	for (int i = 0; i < schema->nnodes; i++)
		if (schema->nodes[i].type == PARQUET_TYPE_LIST)
			n++;
	return n;
}

/* PqWriteTimeUnitMicros writes a TIME or TIMESTAMP logical type in micros. */
static void
PqWriteTimeLogical(ThriftWriter *tw, int16 id, bool utc)
{
	ThriftFieldStructBegin(tw, id);
	ThriftFieldBool(tw, 1, utc);
	ThriftFieldStructBegin(tw, 2);	/* TimeUnit */
	ThriftEmptyStructField(tw, 2);	/* MICROS */
	ThriftStructEnd(tw);
	ThriftStructEnd(tw);
}

/* PqWriteAnnotations writes converted_type, scale, precision, field_id, logicalType. */
static void
PqWriteAnnotations(ThriftWriter *tw, const ParquetNode *node)
{
	int			converted = -1;

	switch (node->type)
	{
		case PARQUET_TYPE_STRING:
			converted = PQ_CONV_UTF8;
			break;
		case PARQUET_TYPE_DECIMAL:
			converted = PQ_CONV_DECIMAL;
			break;
		case PARQUET_TYPE_DATE:
			converted = PQ_CONV_DATE;
			break;
		case PARQUET_TYPE_TIME:
			converted = PQ_CONV_TIME_MICROS;
			break;
		case PARQUET_TYPE_TIMESTAMP:
		case PARQUET_TYPE_TIMESTAMPTZ:
			converted = PQ_CONV_TIMESTAMP_MICROS;
			break;
		case PARQUET_TYPE_LIST:
			converted = PQ_CONV_LIST;
			break;
		default:
			break;
	}
	if (converted >= 0)
		ThriftFieldI32(tw, 6, converted);
	if (node->type == PARQUET_TYPE_DECIMAL)
	{
		ThriftFieldI32(tw, 7, node->scale);
		ThriftFieldI32(tw, 8, node->precision);
	}
	ThriftFieldI32(tw, 9, node->field_id);

	switch (node->type)
	{
		case PARQUET_TYPE_STRING:
			ThriftFieldStructBegin(tw, 10);
			ThriftEmptyStructField(tw, 1);
			ThriftStructEnd(tw);
			break;
		case PARQUET_TYPE_LIST:
			ThriftFieldStructBegin(tw, 10);
			ThriftEmptyStructField(tw, 3);
			ThriftStructEnd(tw);
			break;
		case PARQUET_TYPE_DECIMAL:
			ThriftFieldStructBegin(tw, 10);
			ThriftFieldStructBegin(tw, 5);
			ThriftFieldI32(tw, 1, node->scale);
			ThriftFieldI32(tw, 2, node->precision);
			ThriftStructEnd(tw);
			ThriftStructEnd(tw);
			break;
		case PARQUET_TYPE_DATE:
			ThriftFieldStructBegin(tw, 10);
			ThriftEmptyStructField(tw, 6);
			ThriftStructEnd(tw);
			break;
		case PARQUET_TYPE_TIME:
			ThriftFieldStructBegin(tw, 10);
			PqWriteTimeLogical(tw, 7, false);
			ThriftStructEnd(tw);
			break;
		case PARQUET_TYPE_TIMESTAMP:
		case PARQUET_TYPE_TIMESTAMPTZ:
			ThriftFieldStructBegin(tw, 10);
			PqWriteTimeLogical(tw, 8, node->type == PARQUET_TYPE_TIMESTAMPTZ);
			ThriftStructEnd(tw);
			break;
		case PARQUET_TYPE_UUID:
			ThriftFieldStructBegin(tw, 10);
			ThriftEmptyStructField(tw, 14);
			ThriftStructEnd(tw);
			break;
		default:
			break;
	}
}

/* PqWriteElement writes node's SchemaElement(s) and those of its subtree. */
static void
PqWriteElement(ThriftWriter *tw, const ParquetSchema *schema, ParquetNodeId id)
{
	const ParquetNode *node = &schema->nodes[id];
	bool		group = node->physical < 0;

	ThriftListStructBegin(tw);
	if (!group)
	{
		ThriftFieldI32(tw, 1, node->physical);
		if (node->physical == PQ_PHYS_FLBA)
			ThriftFieldI32(tw, 2, node->type_length);
	}
	if (id != PARQUET_ROOT_NODE)
		ThriftFieldI32(tw, 3, node->required ? PQ_REP_REQUIRED : PQ_REP_OPTIONAL);
	ThriftFieldString(tw, 4, node->name);
	if (group)
		ThriftFieldI32(tw, 5, node->type == PARQUET_TYPE_LIST ? 1 : node->nchildren);
	if (id != PARQUET_ROOT_NODE)
		PqWriteAnnotations(tw, node);
	ThriftStructEnd(tw);

	if (node->type == PARQUET_TYPE_LIST)
	{
		ThriftListStructBegin(tw);
		ThriftFieldI32(tw, 3, PQ_REP_REPEATED);
		ThriftFieldString(tw, 4, "list");
		ThriftFieldI32(tw, 5, 1);
		ThriftStructEnd(tw);
	}
	for (int i = 0; i < node->nchildren; i++)
		PqWriteElement(tw, schema, node->children[i]);
}

/* PqWriteSchemaElements writes FileMetaData.schema (field 2). */
void
PqWriteSchemaElements(ThriftWriter *tw, const ParquetSchema *schema)
{
	ThriftFieldListBegin(tw, 2, THRIFT_STRUCT, PqSchemaElementCount(schema));
	PqWriteElement(tw, schema, PARQUET_ROOT_NODE);
}

/*
 * PqWritePageHeader appends a PageHeader for a data page (v1) or a
 * dictionary page.  Levels are always RLE-encoded.
 */
void
PqWritePageHeader(PqBuf *out, int page_type, uint32 uncompressed,
				  uint32 compressed, uint32 num_values, int encoding)
{
	ThriftWriter tw;

	ThriftInit(&tw, out);
	ThriftFieldI32(&tw, 1, page_type);
	ThriftFieldI32(&tw, 2, (int32) uncompressed);
	ThriftFieldI32(&tw, 3, (int32) compressed);
	if (page_type == PQ_PAGE_DATA)
	{
		ThriftFieldStructBegin(&tw, 5);
		ThriftFieldI32(&tw, 1, (int32) num_values);
		ThriftFieldI32(&tw, 2, encoding);
		ThriftFieldI32(&tw, 3, PQ_ENC_RLE);
		ThriftFieldI32(&tw, 4, PQ_ENC_RLE);
		ThriftStructEnd(&tw);
	}
	else
	{
		ThriftFieldStructBegin(&tw, 7);
		ThriftFieldI32(&tw, 1, (int32) num_values);
		ThriftFieldI32(&tw, 2, encoding);
		ThriftStructEnd(&tw);
	}
	ThriftStructEnd(&tw);
}
