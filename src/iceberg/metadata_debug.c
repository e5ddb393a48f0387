/*-------------------------------------------------------------------------
 *
 * metadata_debug.c
 *	  Test-only SQL entry points into the table metadata model.
 *
 * These functions are not part of the extension's SQL API: the install
 * script does not declare them.  test/interop/sql/debug_metadata.sql
 * declares them for the interop tests, which check the JSON they return
 * against the Iceberg spec.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "iceberg/metadata.h"
#include "lib/stringinfo.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/lsyscache.h"

PG_FUNCTION_INFO_V1(ie_debug_metadata_roundtrip);
PG_FUNCTION_INFO_V1(ie_debug_schema_roundtrip);
PG_FUNCTION_INFO_V1(ie_debug_metadata_demo);
PG_FUNCTION_INFO_V1(ie_debug_metadata_add_snapshot);
PG_FUNCTION_INFO_V1(ie_debug_metadata_expire);
PG_FUNCTION_INFO_V1(ie_debug_metadata_set_property);
PG_FUNCTION_INFO_V1(ie_debug_metadata_add_schema);
PG_FUNCTION_INFO_V1(ie_debug_metadata_file_names);

/* TextArg is argument n as a C string, or NULL when it is null. */
static char *
TextArg(FunctionCallInfo fcinfo, int n)
{
	return PG_ARGISNULL(n) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(n));
}

/* AppendExpired appends the expired snapshots as a JSON array. */
static void
AppendExpired(StringInfo buf, List *expired)
{
	ListCell   *lc;

	appendStringInfoChar(buf, '[');
	foreach(lc, expired)
	{
		IcebergSnapshotInfo *info = lfirst(lc);

		appendStringInfo(buf, "%s{\"snapshot-id\":" INT64_FORMAT ",\"manifest-list\":",
						 foreach_current_index(lc) > 0 ? "," : "", info->snapshot_id);
		escape_json(buf, info->manifest_list);
		appendStringInfoChar(buf, '}');
	}
	appendStringInfoChar(buf, ']');
}

/* AppendStrings appends a List of C strings as a JSON array. */
static void
AppendStrings(StringInfo buf, List *strings)
{
	ListCell   *lc;

	appendStringInfoChar(buf, '[');
	foreach(lc, strings)
	{
		if (foreach_current_index(lc) > 0)
			appendStringInfoChar(buf, ',');
		escape_json(buf, lfirst(lc));
	}
	appendStringInfoChar(buf, ']');
}

/* ie_debug_metadata_roundtrip(json, pretty) parses and serializes metadata. */
Datum
ie_debug_metadata_roundtrip(PG_FUNCTION_ARGS)
{
	IcebergMetadata *md = IcebergMetadataParse(TextArg(fcinfo, 0), NULL);
	bool		pretty = !PG_ARGISNULL(1) && PG_GETARG_BOOL(1);
	char	   *out = IcebergMetadataSerialize(md, pretty);

	IcebergMetadataFree(md);
	PG_RETURN_TEXT_P(cstring_to_text(out));
}

/* ie_debug_schema_roundtrip(json) parses a schema into C structs and back. */
Datum
ie_debug_schema_roundtrip(PG_FUNCTION_ARGS)
{
	int			schema_id;
	IcebergType *schema = IcebergSchemaParse(TextArg(fcinfo, 0), &schema_id);

	PG_RETURN_TEXT_P(cstring_to_text(IcebergSchemaSerialize(schema, schema_id)));
}

/* DemoSchema is a schema with every kind of column the demo needs. */
static IcebergType *
DemoSchema(void)
{
	IcebergType *s = IcebergTypeMakeStruct(8);
	IcebergType *addr = IcebergTypeMakeStruct(2);
	int32		next_id = 1;
	static const char *const names[] = {"id", "amount", "name", "price", "created_at",
	"key", "tags", "address"};

	addr->fields[0] = (IcebergField) {0, "city", false, IcebergTypeMake(ICEBERG_TYPE_STRING)};
	addr->fields[1] = (IcebergField) {0, "zip", true, IcebergTypeMake(ICEBERG_TYPE_INT)};
	s->fields[0].type = IcebergTypeMake(ICEBERG_TYPE_INT);
	s->fields[1].type = IcebergTypeMake(ICEBERG_TYPE_LONG);
	s->fields[2].type = IcebergTypeMake(ICEBERG_TYPE_STRING);
	s->fields[3].type = IcebergTypeMakeDecimal(12, 2);
	s->fields[4].type = IcebergTypeMake(ICEBERG_TYPE_TIMESTAMPTZ);
	s->fields[5].type = IcebergTypeMake(ICEBERG_TYPE_UUID);
	s->fields[6].type = IcebergTypeMakeList(false, IcebergTypeMake(ICEBERG_TYPE_STRING));
	s->fields[7].type = addr;
	for (int i = 0; i < 8; i++)
	{
		s->fields[i].name = names[i];
		s->fields[i].required = (i == 0);
	}
	IcebergAssignFreshIds(s, &next_id);
	return s;
}

/*
 * ie_debug_metadata_demo(location, timestamps, cutoff, min_keep,
 * versions_max) creates a table, writes (in memory) one metadata version
 * per snapshot at the given timestamps, expires snapshots older than
 * cutoff, adds a column and returns {"metadata", "versions",
 * "metadata-files", "expired", "dropped-metadata-files", "schema-ids"}.
 */
Datum
ie_debug_metadata_demo(PG_FUNCTION_ARGS)
{
	char	   *location = TextArg(fcinfo, 0);
	ArrayType  *tsarr = PG_GETARG_ARRAYTYPE_P(1);
	int64		cutoff = PG_GETARG_INT64(2);
	int			min_keep = PG_GETARG_INT32(3);
	char	   *versions_max = psprintf("%d", PG_GETARG_INT32(4));
	Datum	   *tsd;
	int			nts;
	IcebergProperty props[] = {
		{"write.metadata.delete-after-commit.enabled", "true"},
		{"write.metadata.previous-versions-max", versions_max},
		{"write.parquet.compression-codec", "zstd"},
	};
	IcebergMetadata *md;
	IcebergType *schema;
	IcebergType *evolved;
	List	   *files = NIL;
	List	   *versions = NIL;
	List	   *dropped = NIL;
	List	   *expired;
	char	   *file;
	int			sid1,
				sid2;
	StringInfoData buf;

	deconstruct_array(tsarr, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &tsd, NULL, &nts);
	md = IcebergMetadataCreate(location, DemoSchema(), props, lengthof(props),
							   nts > 0 ? DatumGetInt64(tsd[0]) - 1000 : 0);

	/* version 0: the new table */
	file = IcebergMetadataFilePath(location, 0);
	versions = lappend(versions, IcebergMetadataSerialize(md, false));
	files = lappend(files, file);
	IcebergMetadataSetSource(md, file);

	for (int k = 0; k < nts; k++)
	{
		IcebergSnapshotSpec spec = {0};
		IcebergProperty run[1] = {{"iceberg-export.run-id", psprintf("run-%d", k + 1)}};
		char		uuid[ICEBERG_UUID_LEN + 1];

		dropped = list_concat(dropped, IcebergMetadataLogPrevious(md));
		IcebergRandomUuid(uuid);
		spec.snapshot_id = INT64CONST(3051729675574597004) + k;
		spec.timestamp_ms = DatumGetInt64(tsd[k]);
		spec.operation = k == 0 ? "append" : "overwrite";
		spec.manifest_list = IcebergManifestListPath(location, spec.snapshot_id, 1, uuid);
		spec.added_data_files = 1;
		spec.added_records = 10 * (k + 1);
		spec.added_files_size = 1000 * (k + 1);
		spec.deleted_data_files = k == 0 ? 0 : 1;
		spec.deleted_records = 10 * k;
		spec.removed_files_size = 1000 * k;
		spec.nextra = 1;
		spec.extra = run;
		IcebergMetadataAddSnapshot(md, &spec);

		file = IcebergMetadataFilePath(location, k + 1);
		versions = lappend(versions, IcebergMetadataSerialize(md, false));
		files = lappend(files, file);
		IcebergMetadataSetSource(md, file);
	}

	/* last version: expiry, a new column, a property */
	dropped = list_concat(dropped, IcebergMetadataLogPrevious(md));
	expired = IcebergMetadataExpireSnapshots(md, cutoff, min_keep);
	schema = IcebergMetadataCurrentSchema(md);
	evolved = IcebergTypeMakeStruct(schema->nfields + 1);
	memcpy(evolved->fields, schema->fields, sizeof(IcebergField) * schema->nfields);
	evolved->fields[schema->nfields] = (IcebergField) {
		IcebergSchemaMaxId(schema) + 1, "note", false, IcebergTypeMake(ICEBERG_TYPE_STRING)
	};
	sid1 = IcebergMetadataAddSchema(md, evolved);
	sid2 = IcebergMetadataAddSchema(md, evolved);	/* the same again: reused */
	IcebergMetadataSetProperty(md, "iceberg-export.last-run-id", psprintf("run-%d", nts));
	IcebergMetadataSetLastUpdated(md, nts > 0 ? DatumGetInt64(tsd[nts - 1]) + 1000 : 0);
	file = IcebergMetadataFilePath(location, nts + 1);
	versions = lappend(versions, IcebergMetadataSerialize(md, false));
	files = lappend(files, file);

	initStringInfo(&buf);
	appendStringInfo(&buf, "{\"metadata\":%s,\"versions\":[", IcebergMetadataSerialize(md, true));
	for (int i = 0; i < list_length(versions); i++)
		appendStringInfo(&buf, "%s%s", i > 0 ? "," : "", (char *) list_nth(versions, i));
	appendStringInfoString(&buf, "],\"metadata-files\":");
	AppendStrings(&buf, files);
	appendStringInfoString(&buf, ",\"expired\":");
	AppendExpired(&buf, expired);
	appendStringInfoString(&buf, ",\"dropped-metadata-files\":");
	AppendStrings(&buf, dropped);
	appendStringInfo(&buf, ",\"schema-ids\":[%d,%d]}", sid1, sid2);
	IcebergMetadataFree(md);
	PG_RETURN_TEXT_P(cstring_to_text(buf.data));
}

/*
 * ie_debug_metadata_add_snapshot(json, snapshot_id, timestamp_ms,
 * operation, manifest_list, counts int8[6], run_id) adds one snapshot;
 * counts are added files, records, size, deleted files, records, size.
 */
Datum
ie_debug_metadata_add_snapshot(PG_FUNCTION_ARGS)
{
	IcebergMetadata *md = IcebergMetadataParse(TextArg(fcinfo, 0), NULL);
	IcebergSnapshotSpec spec = {0};
	IcebergProperty run[1] = {{"iceberg-export.run-id", TextArg(fcinfo, 6)}};
	Datum	   *cd;
	int			nc;
	char	   *out;

	deconstruct_array(PG_GETARG_ARRAYTYPE_P(5), INT8OID, 8, FLOAT8PASSBYVAL,
					  TYPALIGN_DOUBLE, &cd, NULL, &nc);
	if (nc != 6)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("counts must have 6 elements")));
	spec.snapshot_id = PG_ARGISNULL(1) ? IcebergMetadataNewSnapshotId(md) : PG_GETARG_INT64(1);
	spec.timestamp_ms = PG_GETARG_INT64(2);
	spec.operation = TextArg(fcinfo, 3);
	spec.manifest_list = TextArg(fcinfo, 4);
	spec.added_data_files = DatumGetInt64(cd[0]);
	spec.added_records = DatumGetInt64(cd[1]);
	spec.added_files_size = DatumGetInt64(cd[2]);
	spec.deleted_data_files = DatumGetInt64(cd[3]);
	spec.deleted_records = DatumGetInt64(cd[4]);
	spec.removed_files_size = DatumGetInt64(cd[5]);
	spec.nextra = run[0].value ? 1 : 0;
	spec.extra = run;
	IcebergMetadataAddSnapshot(md, &spec);
	out = IcebergMetadataSerialize(md, false);
	IcebergMetadataFree(md);
	PG_RETURN_TEXT_P(cstring_to_text(out));
}

/*
 * ie_debug_metadata_expire(json, cutoff_ms, min_keep) expires snapshots
 * and returns {"metadata": ..., "expired": [...]}.
 */
Datum
ie_debug_metadata_expire(PG_FUNCTION_ARGS)
{
	IcebergMetadata *md = IcebergMetadataParse(TextArg(fcinfo, 0), NULL);
	List	   *expired = IcebergMetadataExpireSnapshots(md, PG_GETARG_INT64(1),
														 PG_GETARG_INT32(2));
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfo(&buf, "{\"metadata\":%s,\"expired\":", IcebergMetadataSerialize(md, false));
	AppendExpired(&buf, expired);
	appendStringInfoChar(&buf, '}');
	IcebergMetadataFree(md);
	PG_RETURN_TEXT_P(cstring_to_text(buf.data));
}

/* ie_debug_metadata_set_property(json, key, value) sets, or with a null value removes, a property. */
Datum
ie_debug_metadata_set_property(PG_FUNCTION_ARGS)
{
	IcebergMetadata *md = IcebergMetadataParse(TextArg(fcinfo, 0), NULL);
	char	   *key = TextArg(fcinfo, 1);
	char	   *value = TextArg(fcinfo, 2);
	char	   *out;

	if (value)
		IcebergMetadataSetProperty(md, key, value);
	else
		IcebergMetadataRemoveProperty(md, key);
	out = IcebergMetadataSerialize(md, false);
	IcebergMetadataFree(md);
	PG_RETURN_TEXT_P(cstring_to_text(out));
}

/* ie_debug_metadata_add_schema(json, schema_json) evolves the schema (ids as given). */
Datum
ie_debug_metadata_add_schema(PG_FUNCTION_ARGS)
{
	IcebergMetadata *md = IcebergMetadataParse(TextArg(fcinfo, 0), NULL);
	int			ignored;
	IcebergType *schema = IcebergSchemaParse(TextArg(fcinfo, 1), &ignored);
	char	   *out;

	IcebergMetadataAddSchema(md, schema);
	out = IcebergMetadataSerialize(md, false);
	IcebergMetadataFree(md);
	PG_RETURN_TEXT_P(cstring_to_text(out));
}

/*
 * ie_debug_metadata_file_names(location, version, snapshot_id) returns the
 * file names the naming helpers make, and the version parsed back.
 */
Datum
ie_debug_metadata_file_names(PG_FUNCTION_ARGS)
{
	char	   *location = TextArg(fcinfo, 0);
	char	   *file = IcebergMetadataFilePath(location, PG_GETARG_INT32(1));
	char		uuid[ICEBERG_UUID_LEN + 1];
	StringInfoData buf;

	IcebergRandomUuid(uuid);
	initStringInfo(&buf);
	appendStringInfoString(&buf, "{\"metadata-file\":");
	escape_json(&buf, file);
	appendStringInfo(&buf, ",\"version\":%d,\"manifest-list\":", IcebergMetadataFileVersion(file));
	escape_json(&buf, IcebergManifestListPath(location, PG_GETARG_INT64(2), 1, uuid));
	appendStringInfoString(&buf, ",\"manifest\":");
	escape_json(&buf, IcebergManifestPath(location, uuid, 0));
	appendStringInfoString(&buf, ",\"uuid\":");
	escape_json(&buf, uuid);
	appendStringInfoChar(&buf, '}');
	PG_RETURN_TEXT_P(cstring_to_text(buf.data));
}
