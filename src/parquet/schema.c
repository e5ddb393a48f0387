/*-------------------------------------------------------------------------
 *
 * schema.c
 *	  Parquet schema trees: nodes with field ids, types and nesting.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "parquet/parquet_int.h"

/* FLBA decimal byte lengths: the largest precision each length can hold. */
static const int decimal_max_precision[] =
{0, 2, 4, 6, 9, 11, 14, 16, 18, 21, 23, 26, 28, 31, 33, 35, 38};

/* ParquetDecimalByteLength is the smallest FLBA length that holds precision. */
int
ParquetDecimalByteLength(int precision)
{
	for (int n = 1; n < (int) lengthof(decimal_max_precision); n++)
		if (decimal_max_precision[n] >= precision)
			return n;
	elog(ERROR, "decimal precision %d is too large", precision);
	return 0;					/* keep compiler quiet */
}

/* ParquetSchemaCreate makes an empty schema whose root is named "table". */
ParquetSchema *
ParquetSchemaCreate(MemoryContext context)
{
	ParquetSchema *schema = MemoryContextAllocZero(context, sizeof(ParquetSchema));
	ParquetNode *root;

	schema->context = context;
	schema->nodes_cap = 16;
	schema->nodes = MemoryContextAllocZero(context, sizeof(ParquetNode) * schema->nodes_cap);
	schema->nnodes = 1;
	root = &schema->nodes[0];
	root->name = MemoryContextStrdup(context, "table");
	root->required = true;
	root->type = PARQUET_TYPE_STRUCT;
	root->physical = -1;
	root->parent = -1;
	root->leaf = -1;
	return schema;
}

/* PqPhysicalType is the physical type of a leaf type; -1 for groups. */
static int
PqPhysicalType(ParquetType type, int precision)
{
	switch (type)
	{
		case PARQUET_TYPE_BOOLEAN:
			return PQ_PHYS_BOOLEAN;
		case PARQUET_TYPE_INT32:
		case PARQUET_TYPE_DATE:
			return PQ_PHYS_INT32;
		case PARQUET_TYPE_INT64:
		case PARQUET_TYPE_TIME:
		case PARQUET_TYPE_TIMESTAMP:
		case PARQUET_TYPE_TIMESTAMPTZ:
			return PQ_PHYS_INT64;
		case PARQUET_TYPE_FLOAT:
			return PQ_PHYS_FLOAT;
		case PARQUET_TYPE_DOUBLE:
			return PQ_PHYS_DOUBLE;
		case PARQUET_TYPE_STRING:
		case PARQUET_TYPE_BINARY:
			return PQ_PHYS_BYTE_ARRAY;
		case PARQUET_TYPE_DECIMAL:
			return precision <= 9 ? PQ_PHYS_INT32 :
				precision <= 18 ? PQ_PHYS_INT64 : PQ_PHYS_FLBA;
		case PARQUET_TYPE_UUID:
		case PARQUET_TYPE_FIXED:
			return PQ_PHYS_FLBA;
		case PARQUET_TYPE_STRUCT:
		case PARQUET_TYPE_LIST:
			return -1;
	}
	return -1;
}

/* PqSchemaAddNode appends a node under parent and returns its id. */
static ParquetNodeId
PqSchemaAddNode(ParquetSchema *schema, ParquetNodeId parent, const char *name,
				int32 field_id, bool required, ParquetType type,
				int precision, int scale, int length)
{
	ParquetNode *p;
	ParquetNode *node;
	ParquetNodeId id;

	if (parent < 0 || parent >= schema->nnodes)
		elog(ERROR, "invalid parquet parent node %d", parent);
	p = &schema->nodes[parent];
	if (p->type != PARQUET_TYPE_STRUCT && p->type != PARQUET_TYPE_LIST)
		elog(ERROR, "parquet node \"%s\" cannot have children", p->name);
	if (p->type == PARQUET_TYPE_LIST && p->nchildren > 0)
		elog(ERROR, "parquet list \"%s\" already has an element", p->name);
	if (field_id < 0)
		elog(ERROR, "parquet node \"%s\" has no field id", name);

	if (schema->nnodes >= schema->nodes_cap)
	{
		schema->nodes_cap *= 2;
		schema->nodes = repalloc(schema->nodes, sizeof(ParquetNode) * schema->nodes_cap);
	}
	id = schema->nnodes++;
	node = &schema->nodes[id];
	memset(node, 0, sizeof(ParquetNode));
	p = &schema->nodes[parent];
	node->name = MemoryContextStrdup(schema->context,
									 p->type == PARQUET_TYPE_LIST ? "element" : name);
	node->field_id = field_id;
	node->required = required;
	node->type = type;
	node->precision = precision;
	node->scale = scale;
	node->type_length = length;
	node->physical = PqPhysicalType(type, precision);
	node->parent = parent;
	node->leaf = -1;

	if (p->nchildren >= p->children_cap)
	{
		p->children_cap = Max(4, p->children_cap * 2);
		if (p->children == NULL)
			p->children = MemoryContextAlloc(schema->context,
											 sizeof(ParquetNodeId) * p->children_cap);
		else
			p->children = repalloc(p->children, sizeof(ParquetNodeId) * p->children_cap);
	}
	p->children[p->nchildren++] = id;
	return id;
}

/* ParquetSchemaAddColumn adds a node of a non-decimal, non-fixed type. */
ParquetNodeId
ParquetSchemaAddColumn(ParquetSchema *schema, ParquetNodeId parent,
					   const char *name, int32 field_id, bool required,
					   ParquetType type)
{
	int			length = 0;

	if (type == PARQUET_TYPE_DECIMAL || type == PARQUET_TYPE_FIXED)
		elog(ERROR, "use ParquetSchemaAddDecimal or ParquetSchemaAddFixed for \"%s\"", name);
	if (type == PARQUET_TYPE_UUID)
		length = 16;
	return PqSchemaAddNode(schema, parent, name, field_id, required, type, 0, 0, length);
}

/* ParquetSchemaAddDecimal adds a decimal(precision, scale) node. */
ParquetNodeId
ParquetSchemaAddDecimal(ParquetSchema *schema, ParquetNodeId parent,
						const char *name, int32 field_id, bool required,
						int precision, int scale)
{
	if (precision < 1 || precision > PARQUET_MAX_DECIMAL_PRECISION ||
		scale < 0 || scale > precision)
		elog(ERROR, "invalid parquet decimal(%d,%d) for \"%s\"", precision, scale, name);
	return PqSchemaAddNode(schema, parent, name, field_id, required,
						   PARQUET_TYPE_DECIMAL, precision, scale,
						   precision > 18 ? ParquetDecimalByteLength(precision) : 0);
}

/* ParquetSchemaAddFixed adds a fixed(length) node. */
ParquetNodeId
ParquetSchemaAddFixed(ParquetSchema *schema, ParquetNodeId parent,
					  const char *name, int32 field_id, bool required, int length)
{
	if (length < 1)
		elog(ERROR, "invalid parquet fixed length %d for \"%s\"", length, name);
	return PqSchemaAddNode(schema, parent, name, field_id, required,
						   PARQUET_TYPE_FIXED, 0, 0, length);
}
