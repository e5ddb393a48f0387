/*-------------------------------------------------------------------------
 *
 * schema_json.c
 *	  Iceberg schemas as JSON (spec Appendix C) and schema evolution.
 *
 * IcebergSchemaToJson and IcebergSchemaFromJson convert between the
 * IcebergType tree of iceberg_types.h and the schema object of table
 * metadata; IcebergMetadataAddSchema adds an evolved schema to a table,
 * keeping field ids stable.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <jansson.h>
/* postgres exports its own json_object(); see MdObject in metadata.c */
#define json_object() json_object_is_shadowed_by_postgres_use_MdObject()

#include "iceberg/metadata.h"
#include "lib/stringinfo.h"
#include "utils/memutils.h"

/* Type names of the primitive kinds, as in schema JSON. */
static const struct
{
	IcebergTypeKind kind;
	const char *name;
}			PrimitiveNames[] =
{
	{ICEBERG_TYPE_BOOLEAN, "boolean"},
	{ICEBERG_TYPE_INT, "int"},
	{ICEBERG_TYPE_LONG, "long"},
	{ICEBERG_TYPE_FLOAT, "float"},
	{ICEBERG_TYPE_DOUBLE, "double"},
	{ICEBERG_TYPE_DATE, "date"},
	{ICEBERG_TYPE_TIME, "time"},
	{ICEBERG_TYPE_TIMESTAMP, "timestamp"},
	{ICEBERG_TYPE_TIMESTAMPTZ, "timestamptz"},
	{ICEBERG_TYPE_STRING, "string"},
	{ICEBERG_TYPE_UUID, "uuid"},
	{ICEBERG_TYPE_BINARY, "binary"},
};

/* AddId appends id to *ids (*n used, *cap allocated). */
static void
AddId(int32 id, int32 **ids, int *n, int *cap)
{
	if (*n >= *cap)
	{
		*cap *= 2;
		*ids = repalloc(*ids, sizeof(int32) * *cap);
	}
	(*ids)[(*n)++] = id;
}

/* CollectIds appends every id of a type tree to *ids. */
static void
CollectIds(const IcebergType *type, int32 **ids, int *n, int *cap)
{
	switch (type->kind)
	{
		case ICEBERG_TYPE_STRUCT:
			for (int i = 0; i < type->nfields; i++)
				AddId(type->fields[i].id, ids, n, cap);
			for (int i = 0; i < type->nfields; i++)
				CollectIds(type->fields[i].type, ids, n, cap);
			break;
		case ICEBERG_TYPE_MAP:
			AddId(type->key_id, ids, n, cap);
			CollectIds(type->key, ids, n, cap);
			/* FALLTHROUGH */
		case ICEBERG_TYPE_LIST:
			AddId(type->element_id, ids, n, cap);
			CollectIds(type->element, ids, n, cap);
			break;
		default:
			break;
	}
}

/* CompareIds orders ids for qsort. */
static int
CompareIds(const void *a, const void *b)
{
	int32		x = *(const int32 *) a;
	int32		y = *(const int32 *) b;

	return (x > y) - (x < y);
}

/*
 * SchemaIds returns the sorted ids of a schema in *nids and checks that
 * each is positive and used once; errcode is raised otherwise.
 */
static int32 *
SchemaIds(const IcebergType *schema, int *nids, int errcode_value)
{
	int			cap = 16;
	int32	   *ids = palloc(sizeof(int32) * cap);

	*nids = 0;
	if (schema->kind != ICEBERG_TYPE_STRUCT)
		elog(ERROR, "an Iceberg schema must be a struct type");
	CollectIds(schema, &ids, nids, &cap);
	qsort(ids, *nids, sizeof(int32), CompareIds);
	for (int i = 0; i < *nids; i++)
	{
		if (ids[i] <= 0)
			ereport(ERROR,
					(errcode(errcode_value),
					 errmsg("Iceberg schema has a field without an id"),
					 errdetail("Every field, list element and map key and value needs a positive id.")));
		if (i > 0 && ids[i] == ids[i - 1])
			ereport(ERROR,
					(errcode(errcode_value),
					 errmsg("Iceberg schema uses field id %d more than once", ids[i])));
	}
	return ids;
}

/* TypeToJson builds the JSON of a type (a string for primitives). */
static json_t *
TypeToJson(const IcebergType *type)
{
	json_t	   *obj;

	switch (type->kind)
	{
		case ICEBERG_TYPE_DECIMAL:
			if (type->precision < 1 || type->precision > ICEBERG_MAX_DECIMAL_PRECISION ||
				type->scale < 0 || type->scale > type->precision)
				elog(ERROR, "invalid Iceberg decimal(%d,%d)", type->precision, type->scale);
			return MdJson(json_sprintf("decimal(%d,%d)", type->precision, type->scale));
		case ICEBERG_TYPE_FIXED:
			return MdJson(json_sprintf("fixed[%d]", type->length));
		case ICEBERG_TYPE_STRUCT:
			{
				json_t	   *fields = MdJson(json_array());

				obj = MdJson(MdObject());
				MdPut(obj, "type", json_string("struct"));
				MdPut(obj, "fields", fields);
				for (int i = 0; i < type->nfields; i++)
				{
					const IcebergField *f = &type->fields[i];
					json_t	   *fj = MdJson(MdObject());

					MdAppend(fields, fj);
					MdPut(fj, "id", json_integer(f->id));
					MdPut(fj, "name", json_string(f->name));
					MdPut(fj, "required", json_boolean(f->required));
					MdPut(fj, "type", TypeToJson(f->type));
				}
				return obj;
			}
		case ICEBERG_TYPE_LIST:
			obj = MdJson(MdObject());
			MdPut(obj, "type", json_string("list"));
			MdPut(obj, "element-id", json_integer(type->element_id));
			MdPut(obj, "element-required", json_boolean(type->element_required));
			MdPut(obj, "element", TypeToJson(type->element));
			return obj;
		case ICEBERG_TYPE_MAP:
			obj = MdJson(MdObject());
			MdPut(obj, "type", json_string("map"));
			MdPut(obj, "key-id", json_integer(type->key_id));
			MdPut(obj, "key", TypeToJson(type->key));
			MdPut(obj, "value-id", json_integer(type->element_id));
			MdPut(obj, "value-required", json_boolean(type->element_required));
			MdPut(obj, "value", TypeToJson(type->element));
			return obj;
		default:
			for (int i = 0; i < lengthof(PrimitiveNames); i++)
				if (PrimitiveNames[i].kind == type->kind)
					return MdJson(json_string(PrimitiveNames[i].name));
			elog(ERROR, "unknown Iceberg type kind %d", (int) type->kind);
	}
	return NULL;				/* keep compiler quiet */
}

/*
 * IcebergSchemaToJson returns the schema object of a schema (a struct type
 * with ids assigned): {"type": "struct", "schema-id": N, "fields": [...]}.
 * The caller owns the returned reference.
 */
json_t *
IcebergSchemaToJson(const IcebergType *schema, int schema_id)
{
	int			nids;
	json_t	   *obj;
	json_t	   *body;

	pfree(SchemaIds(schema, &nids, ERRCODE_INVALID_PARAMETER_VALUE));
	body = TypeToJson(schema);
	/* keys in the order of the spec's examples: type, schema-id, fields */
	obj = MdJson(MdObject());
	MdPut(obj, "type", json_string("struct"));
	MdPut(obj, "schema-id", json_integer(schema_id));
	json_object_set(obj, "fields", json_object_get(body, "fields"));
	json_decref(body);
	return obj;
}

/* SchemaError reports a malformed schema object. */
static void
SchemaError(const char *where, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("invalid Iceberg schema in table metadata"),
			 errdetail("%s: %s.", where, what)));
}

/* JsonId reads a required id member of obj. */
static int32
JsonId(const json_t *obj, const char *key, const char *where)
{
	json_t	   *v = json_object_get(obj, key);

	if (!json_is_integer(v) || json_integer_value(v) <= 0 ||
		json_integer_value(v) > PG_INT32_MAX)
		SchemaError(where, psprintf("\"%s\" must be a positive 32-bit integer", key));
	return (int32) json_integer_value(v);
}

/* JsonBool reads a required boolean member of obj. */
static bool
JsonBool(const json_t *obj, const char *key, const char *where)
{
	json_t	   *v = json_object_get(obj, key);

	if (!json_is_boolean(v))
		SchemaError(where, psprintf("\"%s\" must be true or false", key));
	return json_is_true(v);
}

/* TypeFromJson parses the JSON of a type; where names it in errors. */
static IcebergType *
TypeFromJson(const json_t *json, const char *where)
{
	const char *kind;

	if (json_is_string(json))
	{
		const char *s = json_string_value(json);
		int			p,
					q,
					n = -1;

		for (int i = 0; i < lengthof(PrimitiveNames); i++)
			if (strcmp(s, PrimitiveNames[i].name) == 0)
				return IcebergTypeMake(PrimitiveNames[i].kind);
		if (sscanf(s, "decimal(%d ,%d )%n", &p, &q, &n) == 2 && n == strlen(s))
		{
			if (p < 1 || p > ICEBERG_MAX_DECIMAL_PRECISION || q < 0 || q > p)
				SchemaError(where, psprintf("unsupported type \"%s\"", s));
			return IcebergTypeMakeDecimal(p, q);
		}
		if (sscanf(s, "fixed[%d ]%n", &p, &n) == 1 && n == strlen(s) && p > 0)
			return IcebergTypeMakeFixed(p);
		SchemaError(where, psprintf("unknown type \"%s\"", s));
	}
	if (!json_is_object(json) || !json_is_string(json_object_get(json, "type")))
		SchemaError(where, "a type must be a string or an object with a \"type\"");
	kind = json_string_value(json_object_get(json, "type"));
	if (strcmp(kind, "struct") == 0)
	{
		json_t	   *fields = json_object_get(json, "fields");
		IcebergType *t;

		if (!json_is_array(fields))
			SchemaError(where, "\"fields\" must be an array");
		t = IcebergTypeMakeStruct(json_array_size(fields));
		for (int i = 0; i < t->nfields; i++)
		{
			json_t	   *fj = json_array_get(fields, i);
			json_t	   *name = json_object_get(fj, "name");
			char	   *fwhere;

			if (!json_is_object(fj) || !json_is_string(name))
				SchemaError(where, psprintf("field %d has no \"name\"", i + 1));
			fwhere = psprintf("%s.%s", where, json_string_value(name));
			t->fields[i].id = JsonId(fj, "id", fwhere);
			t->fields[i].name = pstrdup(json_string_value(name));
			t->fields[i].required = JsonBool(fj, "required", fwhere);
			t->fields[i].type = TypeFromJson(json_object_get(fj, "type"), fwhere);
		}
		return t;
	}
	if (strcmp(kind, "list") == 0)
	{
		char	   *ewhere = psprintf("%s.element", where);
		IcebergType *t;

		t = IcebergTypeMakeList(JsonBool(json, "element-required", where),
								TypeFromJson(json_object_get(json, "element"), ewhere));
		t->element_id = JsonId(json, "element-id", where);
		return t;
	}
	if (strcmp(kind, "map") == 0)
	{
		IcebergType *t;

		t = IcebergTypeMakeMap(TypeFromJson(json_object_get(json, "key"),
											psprintf("%s.key", where)),
							   JsonBool(json, "value-required", where),
							   TypeFromJson(json_object_get(json, "value"),
											psprintf("%s.value", where)));
		t->key_id = JsonId(json, "key-id", where);
		t->element_id = JsonId(json, "value-id", where);
		return t;
	}
	SchemaError(where, psprintf("unknown type \"%s\"", kind));
	return NULL;				/* keep compiler quiet */
}

/*
 * IcebergSchemaFromJson parses a schema object into a struct type (in
 * CurrentMemoryContext) and returns its schema-id in *schema_id (-1 when
 * absent).  Malformed schemas raise ERRCODE_DATA_CORRUPTED.
 */
IcebergType *
IcebergSchemaFromJson(const json_t *json, int *schema_id)
{
	json_t	   *sid = json_object_get(json, "schema-id");
	IcebergType *schema;
	char	   *where;
	int			nids;

	if (sid != NULL && (!json_is_integer(sid) || json_integer_value(sid) < 0 ||
						json_integer_value(sid) > PG_INT32_MAX))
		SchemaError("schema", "\"schema-id\" must be a non-negative integer");
	*schema_id = sid ? (int) json_integer_value(sid) : -1;
	where = sid ? psprintf("schema %d", *schema_id) : "schema";
	if (!json_is_object(json) ||
		!json_is_string(json_object_get(json, "type")) ||
		strcmp(json_string_value(json_object_get(json, "type")), "struct") != 0)
		SchemaError(where, "a schema must be an object of type \"struct\"");
	schema = TypeFromJson(json, where);
	pfree(SchemaIds(schema, &nids, ERRCODE_DATA_CORRUPTED));
	return schema;
}

/* IcebergSchemaSerialize returns the compact schema JSON as a palloc'd string. */
char *
IcebergSchemaSerialize(const IcebergType *schema, int schema_id)
{
	json_t	   *obj = IcebergSchemaToJson(schema, schema_id);
	char	   *s = json_dumps(obj, JSON_COMPACT);
	char	   *result;

	json_decref(obj);
	if (s == NULL)
		elog(ERROR, "could not serialize Iceberg schema");
	result = pstrdup(s);
	free(s);
	return result;
}

/* IcebergSchemaParse parses schema JSON text (see IcebergSchemaFromJson). */
IcebergType *
IcebergSchemaParse(const char *json, int *schema_id)
{
	json_error_t err;
	json_t	   *obj = json_loads(json, JSON_REJECT_DUPLICATES, &err);
	IcebergType *volatile schema = NULL;

	if (obj == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_JSON_TEXT),
				 errmsg("invalid Iceberg schema JSON"),
				 errdetail("Line %d, column %d: %s.", err.line, err.column, err.text)));
	PG_TRY();
	{
		schema = IcebergSchemaFromJson(obj, schema_id);
	}
	PG_FINALLY();
	{
		json_decref(obj);
	}
	PG_END_TRY();
	return schema;
}

/*
 * IcebergMetadataAddSchema makes schema the table's current schema and
 * returns its schema-id.  A schema equal to an existing one is reused;
 * otherwise it gets the next schema-id.  Field ids are the caller's: an id
 * that no earlier schema used must be above last-column-id, so ids are
 * never reused for different columns.  last-column-id follows the largest
 * id.
 */
int
IcebergMetadataAddSchema(IcebergMetadata *md, const IcebergType *schema)
{
	json_t	   *schemas = json_object_get(md->root, "schemas");
	json_int_t	last_column_id = json_integer_value(json_object_get(md->root, "last-column-id"));
	MemoryContext tmp = AllocSetContextCreate(CurrentMemoryContext, "Iceberg schema ids",
											  ALLOCSET_SMALL_SIZES);
	MemoryContext old = MemoryContextSwitchTo(tmp);
	int32	   *ids;
	int			nids;
	int			new_id = 0;
	int			reuse = -1;
	size_t		i;
	json_t	   *s;
	json_t	   *fields;

	ids = SchemaIds(schema, &nids, ERRCODE_INVALID_PARAMETER_VALUE);
	json_array_foreach(schemas, i, s)
	{
		int			sid;
		IcebergType *old_schema = IcebergSchemaFromJson(s, &sid);
		int32	   *old_ids;
		int			nold;

		new_id = Max(new_id, sid + 1);
		old_ids = SchemaIds(old_schema, &nold, ERRCODE_DATA_CORRUPTED);
		for (int k = 0; k < nids; k++)
			if (ids[k] <= last_column_id &&
				bsearch(&ids[k], old_ids, nold, sizeof(int32), CompareIds))
				ids[k] = 0;		/* known id */
	}
	for (int k = 0; k < nids; k++)
		if (ids[k] != 0 && ids[k] <= last_column_id)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("new Iceberg field id %d is not above last-column-id %lld",
							ids[k], (long long) last_column_id),
					 errdetail("Ids of new columns must not reuse ids of earlier columns.")));
	MemoryContextSwitchTo(old);
	MemoryContextDelete(tmp);

	/* reuse an equal schema; nothing below raises errors but out of memory */
	fields = TypeToJson(schema);
	json_array_foreach(schemas, i, s)
	{
		if (json_equal(json_object_get(s, "fields"), json_object_get(fields, "fields")) &&
			json_object_get(s, "identifier-field-ids") == NULL)
		{
			reuse = (int) json_integer_value(json_object_get(s, "schema-id"));
			break;
		}
	}
	json_decref(fields);

	if (reuse < 0)
	{
		MdAppend(schemas, IcebergSchemaToJson(schema, new_id));
		reuse = new_id;
	}
	MdPut(md->root, "current-schema-id", json_integer(reuse));
	MdPut(md->root, "last-column-id",
			json_integer(Max(last_column_id, IcebergSchemaMaxId(schema))));
	return reuse;
}

/* IcebergMetadataCurrentSchema parses the table's current schema. */
IcebergType *
IcebergMetadataCurrentSchema(IcebergMetadata *md)
{
	json_int_t	current = json_integer_value(json_object_get(md->root, "current-schema-id"));
	size_t		i;
	json_t	   *s;

	json_array_foreach(json_object_get(md->root, "schemas"), i, s)
	{
		if (json_integer_value(json_object_get(s, "schema-id")) == current)
		{
			int			sid;

			return IcebergSchemaFromJson(s, &sid);
		}
	}
	elog(ERROR, "current schema %lld of Iceberg table not found", (long long) current);
	return NULL;				/* keep compiler quiet */
}
