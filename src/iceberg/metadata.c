/*-------------------------------------------------------------------------
 *
 * metadata.c
 *	  Iceberg v2 table metadata: create, parse, validate, serialize.
 *
 * The model is the metadata JSON itself, held as a jansson tree that the
 * functions here and in metadata_ops.c change in place.  Parsing checks
 * every field a writer relies on and fills in the optional lists, so the
 * rest of the code may assume they are there.  Serializing writes the
 * top-level keys in the order of Java's TableMetadataParser.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <jansson.h>
/* postgres exports its own json_object(); see MdObject in metadata.c */
#define json_object() json_object_is_shadowed_by_postgres_use_MdObject()

#include "iceberg/metadata.h"
#include "utils/memutils.h"

/* Top-level keys in the order they are written (Java's order). */
static const char *const MetadataKeyOrder[] = {
	"format-version", "table-uuid", "location", "last-sequence-number",
	"last-updated-ms", "last-column-id", "current-schema-id", "schemas",
	"default-spec-id", "partition-specs", "last-partition-id",
	"default-sort-order-id", "sort-orders", "properties",
	"current-snapshot-id", "refs", "snapshots", "statistics",
	"partition-statistics", "snapshot-log", "metadata-log",
};

/* Properties a table must not set: they are derived or reserved. */
static const char *const ReservedProperties[] = {
	"format-version", "uuid", "snapshot-count", "current-snapshot-id",
	"current-snapshot-summary", "current-snapshot-timestamp-ms",
	"current-schema", "default-partition-spec", "default-sort-order",
};

/*
 * MdObject makes an empty JSON object.  Never call jansson's json_object()
 * directly: the postgres executable exports a json_object() of its own (a
 * SQL function), which wins the dynamic symbol lookup from this library
 * and crashes.  json_pack reaches jansson's from inside libjansson.
 */
json_t *
MdObject(void)
{
	return json_pack("{}");
}

/* MdJson checks that jansson could allocate a value. */
json_t *
MdJson(json_t *value)
{
	if (value == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory building Iceberg table metadata")));
	return value;
}

/* MdPut sets key of object to value, taking over its reference. */
void
MdPut(json_t *object, const char *key, json_t *value)
{
	if (json_object_set_new(object, key, MdJson(value)) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory building Iceberg table metadata")));
}

/* MdAppend appends value to array, taking over its reference. */
void
MdAppend(json_t *array, json_t *value)
{
	if (json_array_append_new(array, MdJson(value)) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory building Iceberg table metadata")));
}

/* MdInt is the integer member key of object, or dflt when it is absent. */
int64
MdInt(const json_t *object, const char *key, int64 dflt)
{
	json_t	   *v = json_object_get(object, key);

	return json_is_integer(v) ? (int64) json_integer_value(v) : dflt;
}

/* MetadataResetCallback drops the jansson tree with its memory context. */
static void
MetadataResetCallback(void *arg)
{
	IcebergMetadata *md = (IcebergMetadata *) arg;

	if (md->root)
		json_decref(md->root);
	md->root = NULL;
}

/*
 * MetadataNew makes an empty model in a new child of CurrentMemoryContext;
 * the root set into it afterwards is released when that context goes.
 */
static IcebergMetadata *
MetadataNew(void)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "Iceberg table metadata",
											  ALLOCSET_SMALL_SIZES);
	IcebergMetadata *md = MemoryContextAllocZero(cxt, sizeof(IcebergMetadata));
	MemoryContextCallback *cb = MemoryContextAlloc(cxt, sizeof(MemoryContextCallback));

	md->context = cxt;
	cb->func = MetadataResetCallback;
	cb->arg = md;
	MemoryContextRegisterResetCallback(cxt, cb);
	return md;
}

/* IcebergMetadataFree releases a model and everything it holds. */
void
IcebergMetadataFree(IcebergMetadata *md)
{
	MemoryContextDelete(md->context);
}

/* MdCheckPropertyKey rejects reserved and empty property names. */
void
MdCheckPropertyKey(const char *key)
{
	if (key == NULL || key[0] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("Iceberg table property names must not be empty")));
	for (int i = 0; i < lengthof(ReservedProperties); i++)
		if (strcmp(key, ReservedProperties[i]) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("Iceberg table property \"%s\" is reserved", key),
					 errdetail("It is derived from the table metadata and cannot be set.")));
}

/*
 * IcebergMetadataCreate builds the metadata of a new, empty v2 table at
 * location with schema (ids assigned) as schema 0, unpartitioned and
 * unsorted, with the given properties.
 */
IcebergMetadata *
IcebergMetadataCreate(const char *location, const IcebergType *schema,
					  const IcebergProperty *properties, int nproperties,
					  int64 now_ms)
{
	IcebergMetadata *md;
	json_t	   *root;
	json_t	   *props;
	json_t	   *spec;
	json_t	   *order;
	char		uuid[ICEBERG_UUID_LEN + 1];
	size_t		len = location ? strlen(location) : 0;

	while (len > 0 && location[len - 1] == '/')
		len--;
	if (len == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("Iceberg table location must not be empty")));
	for (int i = 0; i < nproperties; i++)
		MdCheckPropertyKey(properties[i].key);

	md = MetadataNew();
	md->root = root = MdJson(MdObject());
	IcebergRandomUuid(uuid);
	MdPut(root, "format-version", json_integer(2));
	MdPut(root, "table-uuid", json_string(uuid));
	MdPut(root, "location", json_stringn(location, len));
	MdPut(root, "last-sequence-number", json_integer(0));
	MdPut(root, "last-updated-ms", json_integer(now_ms));
	MdPut(root, "last-column-id", json_integer(IcebergSchemaMaxId(schema)));
	MdPut(root, "current-schema-id", json_integer(0));
	MdPut(root, "schemas", json_array());
	MdAppend(json_object_get(root, "schemas"), IcebergSchemaToJson(schema, 0));
	MdPut(root, "default-spec-id", json_integer(0));
	MdPut(root, "partition-specs", json_array());
	spec = MdJson(MdObject());
	MdAppend(json_object_get(root, "partition-specs"), spec);
	MdPut(spec, "spec-id", json_integer(0));
	MdPut(spec, "fields", json_array());
	MdPut(root, "last-partition-id", json_integer(999));
	MdPut(root, "default-sort-order-id", json_integer(0));
	MdPut(root, "sort-orders", json_array());
	order = MdJson(MdObject());
	MdAppend(json_object_get(root, "sort-orders"), order);
	MdPut(order, "order-id", json_integer(0));
	MdPut(order, "fields", json_array());
	MdPut(root, "properties", MdObject());
	props = json_object_get(root, "properties");
	for (int i = 0; i < nproperties; i++)
		MdPut(props, properties[i].key, json_string(properties[i].value));
	MdPut(root, "current-snapshot-id", json_integer(ICEBERG_NO_SNAPSHOT));
	MdPut(root, "refs", MdObject());
	MdPut(root, "snapshots", json_array());
	MdPut(root, "statistics", json_array());
	MdPut(root, "partition-statistics", json_array());
	MdPut(root, "snapshot-log", json_array());
	MdPut(root, "metadata-log", json_array());
	md->source_updated_ms = now_ms;
	return md;
}

/* Corrupt reports metadata that breaks the spec. */
static void
pg_attribute_printf(1, 2)
Corrupt(const char *fmt,...)
{
	char		buf[512];
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("invalid Iceberg table metadata"),
			 errdetail("%s", buf)));
}

/* NeedInt returns the required integer member key of obj. */
static int64
NeedInt(const json_t *obj, const char *key, const char *where)
{
	json_t	   *v = json_object_get(obj, key);

	if (!json_is_integer(v))
		Corrupt("%s\"%s\" is %s, not an integer.", where, key,
				v ? "of the wrong type" : "missing");
	return (int64) json_integer_value(v);
}

/* NeedString returns the required string member key of obj. */
static const char *
NeedString(const json_t *obj, const char *key, const char *where)
{
	json_t	   *v = json_object_get(obj, key);

	if (!json_is_string(v))
		Corrupt("%s\"%s\" is %s, not a string.", where, key,
				v ? "of the wrong type" : "missing");
	return json_string_value(v);
}

/* NeedArray returns the array member key of obj, added empty if optional. */
static json_t *
NeedArray(json_t *obj, const char *key, bool optional)
{
	json_t	   *v = json_object_get(obj, key);

	if (v == NULL && optional)
	{
		MdPut(obj, key, json_array());
		v = json_object_get(obj, key);
	}
	if (!json_is_array(v))
		Corrupt("\"%s\" is %s, not an array.", key, v ? "of the wrong type" : "missing");
	return v;
}

/* MdFindById is the element of array whose member key equals id, or NULL. */
json_t *
MdFindById(const json_t *array, const char *key, int64 id)
{
	size_t		i;
	json_t	   *e;

	json_array_foreach(array, i, e)
	{
		json_t	   *v = json_object_get(e, key);

		if (json_is_integer(v) && json_integer_value(v) == id)
			return e;
	}
	return NULL;
}

/* CheckIdList checks that every element of array is an object with a unique integer key. */
static void
CheckIdList(const json_t *array, const char *name, const char *key)
{
	size_t		i;
	json_t	   *e;

	json_array_foreach(array, i, e)
	{
		char	   *where = psprintf("%s[%zu]: ", name, i);
		int64		id;

		if (!json_is_object(e))
			Corrupt("%s[%zu] is not an object.", name, i);
		id = NeedInt(e, key, where);
		if (MdFindById(array, key, id) != e)
			Corrupt("%s: %s %lld appears more than once.", name, key, (long long) id);
	}
}

/* ValidateSchemas parses every schema and checks the schema ids and last-column-id. */
static void
ValidateSchemas(json_t *root)
{
	json_t	   *schemas = NeedArray(root, "schemas", false);
	int64		last_column_id = NeedInt(root, "last-column-id", "");
	int64		current = NeedInt(root, "current-schema-id", "");
	size_t		i;
	json_t	   *s;

	CheckIdList(schemas, "schemas", "schema-id");
	if (MdFindById(schemas, "schema-id", current) == NULL)
		Corrupt("current-schema-id %lld is not in \"schemas\".", (long long) current);
	json_array_foreach(schemas, i, s)
	{
		int			sid;
		IcebergType *schema = IcebergSchemaFromJson(s, &sid);

		if (IcebergSchemaMaxId(schema) > last_column_id)
			Corrupt("Schema %d uses field id %d, above last-column-id %lld.",
					sid, IcebergSchemaMaxId(schema), (long long) last_column_id);
	}
}

/* ValidateSnapshots checks snapshots, refs and the current snapshot. */
static void
ValidateSnapshots(json_t *root)
{
	json_t	   *snapshots = NeedArray(root, "snapshots", true);
	json_t	   *refs = json_object_get(root, "refs");
	json_t	   *cur = json_object_get(root, "current-snapshot-id");
	int64		last_seq = NeedInt(root, "last-sequence-number", "");
	int64		current;
	size_t		i;
	json_t	   *e;
	const char *name;

	CheckIdList(snapshots, "snapshots", "snapshot-id");
	json_array_foreach(snapshots, i, e)
	{
		char	   *where = psprintf("snapshots[%zu]: ", i);
		json_t	   *summary = json_object_get(e, "summary");

		if (NeedInt(e, "sequence-number", where) > last_seq)
			Corrupt("%ssequence-number is above last-sequence-number %lld.", where,
					(long long) last_seq);
		NeedInt(e, "timestamp-ms", where);
		NeedString(e, "manifest-list", where);
		if (!json_is_object(summary) || !json_is_string(json_object_get(summary, "operation")))
			Corrupt("%s\"summary\" with an \"operation\" is missing.", where);
	}

	if (cur == NULL || json_is_null(cur))
		MdPut(root, "current-snapshot-id", json_integer(ICEBERG_NO_SNAPSHOT));
	current = NeedInt(root, "current-snapshot-id", "");
	if (current != ICEBERG_NO_SNAPSHOT && MdFindById(snapshots, "snapshot-id", current) == NULL)
		Corrupt("current-snapshot-id %lld is not in \"snapshots\".", (long long) current);
	if (refs == NULL)
	{
		/* before refs, the current snapshot was the implied main branch */
		MdPut(root, "refs", MdObject());
		refs = json_object_get(root, "refs");
		if (current != ICEBERG_NO_SNAPSHOT)
		{
			json_t	   *main_ref = MdJson(MdObject());

			MdPut(refs, "main", main_ref);
			MdPut(main_ref, "snapshot-id", json_integer(current));
			MdPut(main_ref, "type", json_string("branch"));
		}
	}
	if (!json_is_object(refs))
		Corrupt("\"refs\" is not an object.");
	json_object_foreach(refs, name, e)
	{
		char	   *where = psprintf("refs.%s: ", name);
		const char *type = NeedString(e, "type", where);

		if (strcmp(type, "branch") != 0 && strcmp(type, "tag") != 0)
			Corrupt("%stype \"%s\" is neither \"branch\" nor \"tag\".", where, type);
		if (!MdFindById(snapshots, "snapshot-id", NeedInt(e, "snapshot-id", where)))
			Corrupt("%ssnapshot %lld is not in \"snapshots\".", where,
					(long long) NeedInt(e, "snapshot-id", where));
	}
	if (MdInt(json_object_get(refs, "main"), "snapshot-id", ICEBERG_NO_SNAPSHOT) != current)
		Corrupt("refs.main does not point to current-snapshot-id %lld.", (long long) current);
}

/* ValidateMetadata checks a parsed metadata object and fills in optional lists. */
static void
ValidateMetadata(json_t *root)
{
	json_t	   *v;
	const char *key;
	const char *uuid;
	size_t		i;
	json_t	   *e;
	int64		version;

	if (!json_is_object(root))
		Corrupt("The metadata is not a JSON object.");
	version = NeedInt(root, "format-version", "");
	if (version != 2)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("unsupported Iceberg format-version %lld", (long long) version),
				 errdetail("Only format version 2 tables can be read and written.")));
	uuid = NeedString(root, "table-uuid", "");
	if (strlen(uuid) != ICEBERG_UUID_LEN || strspn(uuid, "0123456789abcdefABCDEF-") != ICEBERG_UUID_LEN)
		Corrupt("table-uuid \"%s\" is not a UUID.", uuid);
	if (NeedString(root, "location", "")[0] == '\0')
		Corrupt("\"location\" is empty.");
	NeedInt(root, "last-updated-ms", "");
	ValidateSchemas(root);

	CheckIdList(NeedArray(root, "partition-specs", false), "partition-specs", "spec-id");
	json_array_foreach(json_object_get(root, "partition-specs"), i, e)
	{
		if (!json_is_array(json_object_get(e, "fields")))
			Corrupt("partition-specs[%zu]: \"fields\" is not an array.", i);
	}
	if (!MdFindById(json_object_get(root, "partition-specs"), "spec-id",
					NeedInt(root, "default-spec-id", "")))
		Corrupt("default-spec-id is not in \"partition-specs\".");
	NeedInt(root, "last-partition-id", "");
	CheckIdList(NeedArray(root, "sort-orders", false), "sort-orders", "order-id");
	if (!MdFindById(json_object_get(root, "sort-orders"), "order-id",
					NeedInt(root, "default-sort-order-id", "")))
		Corrupt("default-sort-order-id is not in \"sort-orders\".");

	if (json_object_get(root, "properties") == NULL)
		MdPut(root, "properties", MdObject());
	if (!json_is_object(json_object_get(root, "properties")))
		Corrupt("\"properties\" is not an object.");
	json_object_foreach(json_object_get(root, "properties"), key, v)
	{
		if (!json_is_string(v))
			Corrupt("Property \"%s\" is not a string.", key);
	}
	ValidateSnapshots(root);
	NeedArray(root, "statistics", true);
	NeedArray(root, "partition-statistics", true);
	json_array_foreach(NeedArray(root, "snapshot-log", true), i, e)
	{
		NeedInt(e, "timestamp-ms", "snapshot-log entry: ");
		NeedInt(e, "snapshot-id", "snapshot-log entry: ");
	}
	json_array_foreach(NeedArray(root, "metadata-log", true), i, e)
	{
		NeedInt(e, "timestamp-ms", "metadata-log entry: ");
		NeedString(e, "metadata-file", "metadata-log entry: ");
	}
}

/*
 * IcebergMetadataParse parses and checks table metadata JSON.  source_file
 * is the metadata file it was read from (NULL if none); it becomes the
 * previous file that IcebergMetadataLogPrevious records.
 */
IcebergMetadata *
IcebergMetadataParse(const char *json, const char *source_file)
{
	json_error_t err;
	IcebergMetadata *md = MetadataNew();
	MemoryContext old;

	md->root = json_loads(json, JSON_REJECT_DUPLICATES, &err);
	if (md->root == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_JSON_TEXT),
				 errmsg("invalid Iceberg table metadata JSON"),
				 errdetail("Line %d, column %d: %s.", err.line, err.column, err.text)));
	{
		/* what validation allocates goes with a child context */
		MemoryContext check = AllocSetContextCreate(md->context, "metadata check",
													ALLOCSET_SMALL_SIZES);

		old = MemoryContextSwitchTo(check);
		ValidateMetadata(md->root);
		MemoryContextSwitchTo(old);
		MemoryContextDelete(check);
	}
	if (source_file)
		md->source_file = MemoryContextStrdup(md->context, source_file);
	md->source_updated_ms = MdInt(md->root, "last-updated-ms", 0);
	return md;
}

/*
 * IcebergMetadataSerialize returns the metadata JSON (compact, or indented
 * by two spaces) as a palloc'd string, top-level keys in Java's order and
 * any other keys after them in the order they came.
 */
char *
IcebergMetadataSerialize(IcebergMetadata *md, bool pretty)
{
	json_t	   *ordered = MdJson(MdObject());
	const char *key;
	json_t	   *v;
	char	   *s;
	char	   *result;

	for (int i = 0; i < lengthof(MetadataKeyOrder); i++)
		if ((v = json_object_get(md->root, MetadataKeyOrder[i])) != NULL)
			json_object_set(ordered, MetadataKeyOrder[i], v);
	json_object_foreach(md->root, key, v)
	{
		if (json_object_get(ordered, key) == NULL)
			json_object_set(ordered, key, v);
	}
	s = json_dumps(ordered, pretty ? JSON_INDENT(2) : JSON_COMPACT);
	json_decref(ordered);
	if (s == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory serializing Iceberg table metadata")));
	result = pstrdup(s);
	free(s);
	return result;
}
