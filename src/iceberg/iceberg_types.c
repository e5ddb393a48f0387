/*-------------------------------------------------------------------------
 *
 * iceberg_types.c
 *	  Iceberg type trees: construction, field ids, and Parquet schemas.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "iceberg/iceberg_types.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"

/* IcebergTypeMake makes a node of the given kind with everything else zero. */
IcebergType *
IcebergTypeMake(IcebergTypeKind kind)
{
	IcebergType *type = palloc0(sizeof(IcebergType));

	type->kind = kind;
	return type;
}

/* IcebergTypeMakeDecimal makes decimal(precision, scale). */
IcebergType *
IcebergTypeMakeDecimal(int precision, int scale)
{
	IcebergType *type;

	if (precision < 1 || precision > ICEBERG_MAX_DECIMAL_PRECISION ||
		scale < 0 || scale > precision)
		elog(ERROR, "invalid iceberg decimal(%d,%d)", precision, scale);
	type = IcebergTypeMake(ICEBERG_TYPE_DECIMAL);
	type->precision = precision;
	type->scale = scale;
	return type;
}

/* IcebergTypeMakeFixed makes fixed[length]. */
IcebergType *
IcebergTypeMakeFixed(int length)
{
	IcebergType *type;

	if (length < 1)
		elog(ERROR, "invalid iceberg fixed[%d]", length);
	type = IcebergTypeMake(ICEBERG_TYPE_FIXED);
	type->length = length;
	return type;
}

/*
 * IcebergTypeMakeStruct makes a struct with room for nfields fields; the
 * caller fills in their names, nullability and types.
 */
IcebergType *
IcebergTypeMakeStruct(int nfields)
{
	IcebergType *type = IcebergTypeMake(ICEBERG_TYPE_STRUCT);

	type->nfields = nfields;
	type->fields = nfields > 0 ? palloc0(sizeof(IcebergField) * nfields) : NULL;
	return type;
}

/* IcebergTypeMakeList makes list<element>. */
IcebergType *
IcebergTypeMakeList(bool element_required, IcebergType *element)
{
	IcebergType *type = IcebergTypeMake(ICEBERG_TYPE_LIST);

	type->element_required = element_required;
	type->element = element;
	return type;
}

/* IcebergTypeMakeMap makes map<key, value>. */
IcebergType *
IcebergTypeMakeMap(IcebergType *key, bool value_required, IcebergType *value)
{
	IcebergType *type = IcebergTypeMake(ICEBERG_TYPE_MAP);

	type->key = key;
	type->element_required = value_required;
	type->element = value;
	return type;
}

/* IcebergTypeIsPrimitive is true for every kind but struct, list and map. */
bool
IcebergTypeIsPrimitive(const IcebergType *type)
{
	return type->kind != ICEBERG_TYPE_STRUCT &&
		type->kind != ICEBERG_TYPE_LIST &&
		type->kind != ICEBERG_TYPE_MAP;
}

/* IcebergTypeAppend appends the rendering of type to buf. */
static void
IcebergTypeAppend(StringInfo buf, const IcebergType *type)
{
	switch (type->kind)
	{
		case ICEBERG_TYPE_BOOLEAN:
			appendStringInfoString(buf, "boolean");
			break;
		case ICEBERG_TYPE_INT:
			appendStringInfoString(buf, "int");
			break;
		case ICEBERG_TYPE_LONG:
			appendStringInfoString(buf, "long");
			break;
		case ICEBERG_TYPE_FLOAT:
			appendStringInfoString(buf, "float");
			break;
		case ICEBERG_TYPE_DOUBLE:
			appendStringInfoString(buf, "double");
			break;
		case ICEBERG_TYPE_DECIMAL:
			appendStringInfo(buf, "decimal(%d,%d)", type->precision, type->scale);
			break;
		case ICEBERG_TYPE_DATE:
			appendStringInfoString(buf, "date");
			break;
		case ICEBERG_TYPE_TIME:
			appendStringInfoString(buf, "time");
			break;
		case ICEBERG_TYPE_TIMESTAMP:
			appendStringInfoString(buf, "timestamp");
			break;
		case ICEBERG_TYPE_TIMESTAMPTZ:
			appendStringInfoString(buf, "timestamptz");
			break;
		case ICEBERG_TYPE_STRING:
			appendStringInfoString(buf, "string");
			break;
		case ICEBERG_TYPE_UUID:
			appendStringInfoString(buf, "uuid");
			break;
		case ICEBERG_TYPE_FIXED:
			appendStringInfo(buf, "fixed[%d]", type->length);
			break;
		case ICEBERG_TYPE_BINARY:
			appendStringInfoString(buf, "binary");
			break;
		case ICEBERG_TYPE_STRUCT:
			appendStringInfoString(buf, "struct<");
			for (int i = 0; i < type->nfields; i++)
			{
				if (i > 0)
					appendStringInfoString(buf, ", ");
				appendStringInfo(buf, "%s: ", type->fields[i].name);
				IcebergTypeAppend(buf, type->fields[i].type);
			}
			appendStringInfoChar(buf, '>');
			break;
		case ICEBERG_TYPE_LIST:
			appendStringInfoString(buf, "list<");
			IcebergTypeAppend(buf, type->element);
			appendStringInfoChar(buf, '>');
			break;
		case ICEBERG_TYPE_MAP:
			appendStringInfoString(buf, "map<");
			IcebergTypeAppend(buf, type->key);
			appendStringInfoString(buf, ", ");
			IcebergTypeAppend(buf, type->element);
			appendStringInfoChar(buf, '>');
			break;
	}
}

/* IcebergTypeToString renders a type for messages and schema JSON. */
char *
IcebergTypeToString(const IcebergType *type)
{
	StringInfoData buf;

	initStringInfo(&buf);
	IcebergTypeAppend(&buf, type);
	return buf.data;
}

/*
 * IcebergAssignFreshIds numbers the nested fields of a type the way
 * Iceberg's AssignFreshIds visitor does: a struct's own fields get
 * consecutive ids first, then each field's type is visited in order; a list
 * takes one id for its element before visiting it; a map takes ids for its
 * key and value before visiting them.  For a schema this gives the
 * top-level columns 1..n and puts every nested id after them.
 */
void
IcebergAssignFreshIds(IcebergType *type, int32 *next_id)
{
	check_stack_depth();

	switch (type->kind)
	{
		case ICEBERG_TYPE_STRUCT:
			for (int i = 0; i < type->nfields; i++)
				type->fields[i].id = (*next_id)++;
			for (int i = 0; i < type->nfields; i++)
				IcebergAssignFreshIds(type->fields[i].type, next_id);
			break;
		case ICEBERG_TYPE_LIST:
			type->element_id = (*next_id)++;
			IcebergAssignFreshIds(type->element, next_id);
			break;
		case ICEBERG_TYPE_MAP:
			type->key_id = (*next_id)++;
			type->element_id = (*next_id)++;
			IcebergAssignFreshIds(type->key, next_id);
			IcebergAssignFreshIds(type->element, next_id);
			break;
		default:
			break;
	}
}

/* IcebergSchemaMaxId is the largest id used in a type (0 if none). */
int32
IcebergSchemaMaxId(const IcebergType *type)
{
	int32		max_id = 0;

	switch (type->kind)
	{
		case ICEBERG_TYPE_STRUCT:
			for (int i = 0; i < type->nfields; i++)
			{
				max_id = Max(max_id, type->fields[i].id);
				max_id = Max(max_id, IcebergSchemaMaxId(type->fields[i].type));
			}
			break;
		case ICEBERG_TYPE_MAP:
			max_id = Max(type->key_id, IcebergSchemaMaxId(type->key));
			/* FALLTHROUGH */
		case ICEBERG_TYPE_LIST:
			max_id = Max(max_id, type->element_id);
			max_id = Max(max_id, IcebergSchemaMaxId(type->element));
			break;
		default:
			break;
	}
	return max_id;
}

/* IcebergParquetType is the Parquet column type of a non-parametric kind. */
static ParquetType
IcebergParquetType(IcebergTypeKind kind)
{
	switch (kind)
	{
		case ICEBERG_TYPE_BOOLEAN:
			return PARQUET_TYPE_BOOLEAN;
		case ICEBERG_TYPE_INT:
			return PARQUET_TYPE_INT32;
		case ICEBERG_TYPE_LONG:
			return PARQUET_TYPE_INT64;
		case ICEBERG_TYPE_FLOAT:
			return PARQUET_TYPE_FLOAT;
		case ICEBERG_TYPE_DOUBLE:
			return PARQUET_TYPE_DOUBLE;
		case ICEBERG_TYPE_DATE:
			return PARQUET_TYPE_DATE;
		case ICEBERG_TYPE_TIME:
			return PARQUET_TYPE_TIME;
		case ICEBERG_TYPE_TIMESTAMP:
			return PARQUET_TYPE_TIMESTAMP;
		case ICEBERG_TYPE_TIMESTAMPTZ:
			return PARQUET_TYPE_TIMESTAMPTZ;
		case ICEBERG_TYPE_STRING:
			return PARQUET_TYPE_STRING;
		case ICEBERG_TYPE_UUID:
			return PARQUET_TYPE_UUID;
		case ICEBERG_TYPE_BINARY:
			return PARQUET_TYPE_BINARY;
		case ICEBERG_TYPE_STRUCT:
			return PARQUET_TYPE_STRUCT;
		case ICEBERG_TYPE_LIST:
			return PARQUET_TYPE_LIST;
		default:
			break;
	}
	elog(ERROR, "iceberg type kind %d has no plain parquet type", (int) kind);
	return PARQUET_TYPE_BINARY; /* keep compiler quiet */
}

/*
 * IcebergAddParquetNode adds the Parquet node of one field (or list
 * element) under parent, and fills in out with it and its children.
 */
static void
IcebergAddParquetNode(ParquetSchema *schema, ParquetNodeId parent,
					  const char *name, int32 id, bool required,
					  const IcebergType *type, IcebergParquetNode *out)
{
	check_stack_depth();

	if (id <= 0)
		elog(ERROR, "iceberg field \"%s\" has no id", name);

	out->type = type;
	out->nchildren = 0;
	out->children = NULL;

	switch (type->kind)
	{
		case ICEBERG_TYPE_DECIMAL:
			out->node = ParquetSchemaAddDecimal(schema, parent, name, id, required,
												type->precision, type->scale);
			break;
		case ICEBERG_TYPE_FIXED:
			out->node = ParquetSchemaAddFixed(schema, parent, name, id, required,
											  type->length);
			break;
		case ICEBERG_TYPE_STRUCT:
			out->node = ParquetSchemaAddColumn(schema, parent, name, id, required,
											   PARQUET_TYPE_STRUCT);
			out->nchildren = type->nfields;
			out->children = palloc0(sizeof(IcebergParquetNode) * Max(type->nfields, 1));
			for (int i = 0; i < type->nfields; i++)
			{
				const IcebergField *f = &type->fields[i];

				IcebergAddParquetNode(schema, out->node, f->name, f->id,
									  f->required, f->type, &out->children[i]);
			}
			break;
		case ICEBERG_TYPE_LIST:
			out->node = ParquetSchemaAddColumn(schema, parent, name, id, required,
											   PARQUET_TYPE_LIST);
			out->nchildren = 1;
			out->children = palloc0(sizeof(IcebergParquetNode));
			IcebergAddParquetNode(schema, out->node, "element", type->element_id,
								  type->element_required, type->element,
								  &out->children[0]);
			break;
		case ICEBERG_TYPE_MAP:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("map column \"%s\" cannot be written to parquet yet", name)));
			break;
		default:
			out->node = ParquetSchemaAddColumn(schema, parent, name, id, required,
											   IcebergParquetType(type->kind));
			break;
	}
}

/*
 * IcebergSchemaToParquet builds the Parquet schema for an Iceberg schema
 * whose ids are assigned, and returns the node of each top-level field.
 */
ParquetSchema *
IcebergSchemaToParquet(const IcebergType *schema, MemoryContext context,
					   IcebergParquetNode **columns)
{
	MemoryContext oldcxt;
	ParquetSchema *pq;
	IcebergParquetNode *nodes;

	if (schema->kind != ICEBERG_TYPE_STRUCT)
		elog(ERROR, "an iceberg schema must be a struct");

	oldcxt = MemoryContextSwitchTo(context);
	pq = ParquetSchemaCreate(context);
	nodes = palloc0(sizeof(IcebergParquetNode) * Max(schema->nfields, 1));
	for (int i = 0; i < schema->nfields; i++)
	{
		const IcebergField *f = &schema->fields[i];

		IcebergAddParquetNode(pq, PARQUET_ROOT_NODE, f->name, f->id, f->required,
							  f->type, &nodes[i]);
	}
	MemoryContextSwitchTo(oldcxt);

	*columns = nodes;
	return pq;
}
