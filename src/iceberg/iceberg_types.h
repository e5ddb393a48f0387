/*-------------------------------------------------------------------------
 *
 * iceberg_types.h
 *	  Iceberg data types and schemas as plain C structures.
 *
 * An Iceberg schema is a struct type whose fields carry ids.  Types are
 * trees of IcebergType nodes: primitives, decimal(p,s), fixed[L], and the
 * nested struct, list and map types.  Nothing here knows about SQL, the
 * Postgres catalogs or JSON; the sync area maps Postgres types onto these,
 * the metadata code serializes them, and IcebergSchemaToParquet turns them
 * into the schema of a Parquet data file.
 *
 * Every node is allocated in the memory context that is current when it
 * is made; the trees are easy to walk (arrays, no lists) and are never
 * modified after the field ids are assigned.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ICEBERG_EXPORT_ICEBERG_TYPES_H
#define ICEBERG_EXPORT_ICEBERG_TYPES_H

#include "postgres.h"

#include "parquet/parquet.h"

/* Largest precision of an Iceberg decimal. */
#define ICEBERG_MAX_DECIMAL_PRECISION 38

typedef enum IcebergTypeKind
{
	ICEBERG_TYPE_BOOLEAN,
	ICEBERG_TYPE_INT,			/* 32-bit signed */
	ICEBERG_TYPE_LONG,			/* 64-bit signed */
	ICEBERG_TYPE_FLOAT,
	ICEBERG_TYPE_DOUBLE,
	ICEBERG_TYPE_DECIMAL,		/* decimal(precision, scale) */
	ICEBERG_TYPE_DATE,			/* days since 1970-01-01 */
	ICEBERG_TYPE_TIME,			/* microseconds since midnight */
	ICEBERG_TYPE_TIMESTAMP,		/* microseconds since 1970, no zone */
	ICEBERG_TYPE_TIMESTAMPTZ,	/* microseconds since 1970-01-01 00:00 UTC */
	ICEBERG_TYPE_STRING,		/* UTF-8 */
	ICEBERG_TYPE_UUID,
	ICEBERG_TYPE_FIXED,			/* fixed[length] */
	ICEBERG_TYPE_BINARY,
	ICEBERG_TYPE_STRUCT,
	ICEBERG_TYPE_LIST,
	ICEBERG_TYPE_MAP
} IcebergTypeKind;

typedef struct IcebergType IcebergType;

/* A named field of a struct (or the top-level schema). */
typedef struct IcebergField
{
	int32		id;				/* 0 until ids are assigned */
	const char *name;
	bool		required;
	IcebergType *type;
} IcebergField;

struct IcebergType
{
	IcebergTypeKind kind;

	/* ICEBERG_TYPE_DECIMAL */
	int			precision;
	int			scale;

	/* ICEBERG_TYPE_FIXED */
	int			length;

	/* ICEBERG_TYPE_STRUCT */
	int			nfields;
	IcebergField *fields;

	/* ICEBERG_TYPE_LIST: the element; ICEBERG_TYPE_MAP: the value */
	int32		element_id;
	bool		element_required;
	IcebergType *element;

	/* ICEBERG_TYPE_MAP only: the key (keys are always required) */
	int32		key_id;
	IcebergType *key;
};

/* Constructors; the nodes live in CurrentMemoryContext. */
extern IcebergType *IcebergTypeMake(IcebergTypeKind kind);
extern IcebergType *IcebergTypeMakeDecimal(int precision, int scale);
extern IcebergType *IcebergTypeMakeFixed(int length);
extern IcebergType *IcebergTypeMakeStruct(int nfields);
extern IcebergType *IcebergTypeMakeList(bool element_required, IcebergType *element);
extern IcebergType *IcebergTypeMakeMap(IcebergType *key, bool value_required,
									   IcebergType *value);

/* IcebergTypeIsPrimitive is true for every kind but struct, list and map. */
extern bool IcebergTypeIsPrimitive(const IcebergType *type);

/*
 * IcebergTypeToString renders a type as in Iceberg's schema JSON for
 * primitives ("decimal(10,2)", "fixed[16]", "timestamptz"), and as
 * "struct<...>", "list<...>", "map<...,...>" for nested types, for messages.
 */
extern char *IcebergTypeToString(const IcebergType *type);

/*
 * IcebergAssignFreshIds gives ids to every field, list element and map
 * key/value of a schema, starting at *next_id, in the order of Iceberg's
 * TypeUtil.assignFreshIds: all fields of a struct first, then the nested
 * ids of each field in turn.  *next_id is left at the next unused id.
 */
extern void IcebergAssignFreshIds(IcebergType *schema, int32 *next_id);

/* IcebergSchemaMaxId is the largest id used in a schema (0 if none). */
extern int32 IcebergSchemaMaxId(const IcebergType *schema);

/*
 * The Parquet node of each Iceberg node, as a tree mirroring the type:
 * a struct has one child per field, a list one child for its element.
 */
typedef struct IcebergParquetNode
{
	ParquetNodeId node;
	const IcebergType *type;
	int			nchildren;
	struct IcebergParquetNode *children;
} IcebergParquetNode;

/*
 * IcebergSchemaToParquet builds the Parquet schema of a data file for an
 * Iceberg schema (a struct type with ids assigned) in context, and returns
 * in *columns an array of schema->nfields nodes, one per top-level field,
 * giving the Parquet node ids to write values to.
 */
extern ParquetSchema *IcebergSchemaToParquet(const IcebergType *schema,
											 MemoryContext context,
											 IcebergParquetNode **columns);

#endif							/* ICEBERG_EXPORT_ICEBERG_TYPES_H */
