/*-------------------------------------------------------------------------
 *
 * metadata_ops.c
 *	  Changes to Iceberg table metadata: snapshots, properties, expiry,
 *	  the metadata log, and the names of metadata files.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <jansson.h>
/* postgres exports its own json_object(); see MdObject in metadata.c */
#define json_object() json_object_is_shadowed_by_postgres_use_MdObject()

#include "iceberg/metadata.h"

/* Summary totals: total key, then the added and removed counters. */
static const char *const SummaryTotals[][3] = {
	{"total-records", "added-records", "deleted-records"},
	{"total-files-size", "added-files-size", "removed-files-size"},
	{"total-data-files", "added-data-files", "deleted-data-files"},
	{"total-delete-files", "added-delete-files", "removed-delete-files"},
	{"total-position-deletes", "added-position-deletes", "removed-position-deletes"},
	{"total-equality-deletes", "added-equality-deletes", "removed-equality-deletes"},
};

/* IcebergMetadataTableUuid is the table-uuid. */
const char *
IcebergMetadataTableUuid(IcebergMetadata *md)
{
	return json_string_value(json_object_get(md->root, "table-uuid"));
}

/* IcebergMetadataLocation is the table's base location. */
const char *
IcebergMetadataLocation(IcebergMetadata *md)
{
	return json_string_value(json_object_get(md->root, "location"));
}

/* IcebergMetadataCurrentSnapshotId is the current snapshot, or ICEBERG_NO_SNAPSHOT. */
int64
IcebergMetadataCurrentSnapshotId(IcebergMetadata *md)
{
	return MdInt(md->root, "current-snapshot-id", ICEBERG_NO_SNAPSHOT);
}

/* IcebergMetadataLastSequenceNumber is the last-sequence-number. */
int64
IcebergMetadataLastSequenceNumber(IcebergMetadata *md)
{
	return MdInt(md->root, "last-sequence-number", 0);
}

/* IcebergMetadataCurrentSchemaId is the current-schema-id. */
int
IcebergMetadataCurrentSchemaId(IcebergMetadata *md)
{
	return (int) MdInt(md->root, "current-schema-id", 0);
}

/* IcebergMetadataGetProperty is a table property, or NULL when not set. */
const char *
IcebergMetadataGetProperty(IcebergMetadata *md, const char *key)
{
	return json_string_value(json_object_get(json_object_get(md->root, "properties"), key));
}

/* SnapshotInfo describes one snapshot object in CurrentMemoryContext. */
static IcebergSnapshotInfo *
SnapshotInfo(const json_t *s)
{
	IcebergSnapshotInfo *info = palloc(sizeof(IcebergSnapshotInfo));

	info->snapshot_id = MdInt(s, "snapshot-id", 0);
	info->parent_id = MdInt(s, "parent-snapshot-id", ICEBERG_NO_SNAPSHOT);
	info->sequence_number = MdInt(s, "sequence-number", 0);
	info->timestamp_ms = MdInt(s, "timestamp-ms", 0);
	info->manifest_list = pstrdup(json_string_value(json_object_get(s, "manifest-list")));
	return info;
}

/* IcebergMetadataSnapshots lists every snapshot as IcebergSnapshotInfo, in table order. */
List *
IcebergMetadataSnapshots(IcebergMetadata *md)
{
	List	   *result = NIL;
	size_t		i;
	json_t	   *s;

	json_array_foreach(json_object_get(md->root, "snapshots"), i, s)
		result = lappend(result, SnapshotInfo(s));
	return result;
}

/*
 * IcebergMetadataSnapshotSummary is the summary value key of a snapshot,
 * or NULL when the snapshot or the key is not there.
 */
const char *
IcebergMetadataSnapshotSummary(IcebergMetadata *md, int64 snapshot_id, const char *key)
{
	json_t	   *s = MdFindById(json_object_get(md->root, "snapshots"), "snapshot-id", snapshot_id);

	return json_string_value(json_object_get(json_object_get(s, "summary"), key));
}

/* SummaryInt is a summary counter as a number; false if absent or not a number. */
static bool
SummaryInt(const json_t *summary, const char *key, int64 *value)
{
	const char *s = json_string_value(json_object_get(summary, key));
	char	   *end;

	if (s == NULL || *s == '\0')
		return false;
	errno = 0;
	*value = strtoll(s, &end, 10);
	return errno == 0 && *end == '\0';
}

/* PutCount sets a summary counter (summary values are strings). */
static void
PutCount(json_t *summary, const char *key, int64 value)
{
	MdPut(summary, key, json_sprintf(INT64_FORMAT, value));
}

/*
 * IcebergMetadataAddSnapshot adds a snapshot on top of the current one and
 * makes it current: sequence number last-sequence-number + 1, the current
 * schema, a summary with the caller's counters, totals carried over from
 * the parent (started at 0 for the first snapshot, left out when the
 * parent lacks them) and the caller's extra entries; refs.main,
 * current-snapshot-id, the snapshot log and last-updated-ms follow.
 */
void
IcebergMetadataAddSnapshot(IcebergMetadata *md, const IcebergSnapshotSpec *spec)
{
	json_t	   *root = md->root;
	json_t	   *snapshots = json_object_get(root, "snapshots");
	json_t	   *refs = json_object_get(root, "refs");
	json_t	   *main_ref = json_object_get(refs, "main");
	int64		parent_id = IcebergMetadataCurrentSnapshotId(md);
	json_t	   *parent = MdFindById(snapshots, "snapshot-id", parent_id);
	json_t	   *parent_summary = json_object_get(parent, "summary");
	int64		seq = IcebergMetadataLastSequenceNumber(md) + 1;
	json_t	   *snap;
	json_t	   *summary;
	json_t	   *entry;
	int64		counts[lengthof(SummaryTotals)][2] = {{0}};
	int64		totals[lengthof(SummaryTotals)];
	bool		have_total[lengthof(SummaryTotals)];
	const char *op = spec->operation;

	if (spec->snapshot_id <= 0)
		elog(ERROR, "Iceberg snapshot ids must be positive");
	if (MdFindById(snapshots, "snapshot-id", spec->snapshot_id))
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_OBJECT),
				 errmsg("Iceberg snapshot " INT64_FORMAT " already exists", spec->snapshot_id)));
	if (op == NULL || (strcmp(op, "append") != 0 && strcmp(op, "overwrite") != 0 &&
					   strcmp(op, "delete") != 0 && strcmp(op, "replace") != 0))
		elog(ERROR, "unknown Iceberg snapshot operation \"%s\"", op ? op : "(null)");
	if (spec->manifest_list == NULL)
		elog(ERROR, "an Iceberg snapshot needs a manifest list");

	counts[0][0] = spec->added_records;
	counts[0][1] = spec->deleted_records;
	counts[1][0] = spec->added_files_size;
	counts[1][1] = spec->removed_files_size;
	counts[2][0] = spec->added_data_files;
	counts[2][1] = spec->deleted_data_files;
	for (int i = 0; i < lengthof(SummaryTotals); i++)
	{
		int64		prev = 0;

		have_total[i] = parent == NULL || SummaryInt(parent_summary, SummaryTotals[i][0], &prev);
		totals[i] = prev + counts[i][0] - counts[i][1];
	}

	/* nothing below raises errors but out of memory */
	snap = MdJson(MdObject());
	MdAppend(snapshots, snap);
	MdPut(snap, "snapshot-id", json_integer(spec->snapshot_id));
	if (parent != NULL)
		MdPut(snap, "parent-snapshot-id", json_integer(parent_id));
	MdPut(snap, "sequence-number", json_integer(seq));
	MdPut(snap, "timestamp-ms", json_integer(spec->timestamp_ms));
	MdPut(snap, "summary", MdObject());
	summary = json_object_get(snap, "summary");
	MdPut(summary, "operation", json_string(op));
	PutCount(summary, "added-data-files", spec->added_data_files);
	PutCount(summary, "added-records", spec->added_records);
	PutCount(summary, "added-files-size", spec->added_files_size);
	PutCount(summary, "deleted-data-files", spec->deleted_data_files);
	PutCount(summary, "deleted-records", spec->deleted_records);
	PutCount(summary, "removed-files-size", spec->removed_files_size);
	for (int i = 0; i < lengthof(SummaryTotals); i++)
		if (have_total[i])
			PutCount(summary, SummaryTotals[i][0], totals[i]);
	for (int i = 0; i < spec->nextra; i++)
		MdPut(summary, spec->extra[i].key, json_string(spec->extra[i].value));
	MdPut(snap, "manifest-list", json_string(spec->manifest_list));
	MdPut(snap, "schema-id", json_integer(IcebergMetadataCurrentSchemaId(md)));

	MdPut(root, "last-sequence-number", json_integer(seq));
	MdPut(root, "last-updated-ms", json_integer(spec->timestamp_ms));
	MdPut(root, "current-snapshot-id", json_integer(spec->snapshot_id));
	if (!json_is_object(main_ref))
	{
		main_ref = MdJson(MdObject());
		MdPut(refs, "main", main_ref);
	}
	MdPut(main_ref, "snapshot-id", json_integer(spec->snapshot_id));
	MdPut(main_ref, "type", json_string("branch"));
	entry = MdJson(MdObject());
	MdAppend(json_object_get(root, "snapshot-log"), entry);
	MdPut(entry, "timestamp-ms", json_integer(spec->timestamp_ms));
	MdPut(entry, "snapshot-id", json_integer(spec->snapshot_id));
}

/* IcebergMetadataSetProperty sets a table property. */
void
IcebergMetadataSetProperty(IcebergMetadata *md, const char *key, const char *value)
{
	MdCheckPropertyKey(key);
	if (value == NULL)
		elog(ERROR, "Iceberg table property \"%s\" needs a value", key);
	MdPut(json_object_get(md->root, "properties"), key, json_string(value));
}

/* IcebergMetadataRemoveProperty removes a table property; false if it was not set. */
bool
IcebergMetadataRemoveProperty(IcebergMetadata *md, const char *key)
{
	return json_object_del(json_object_get(md->root, "properties"), key) == 0;
}

/* IcebergMetadataSetLastUpdated sets last-updated-ms (do so before writing). */
void
IcebergMetadataSetLastUpdated(IcebergMetadata *md, int64 now_ms)
{
	MdPut(md->root, "last-updated-ms", json_integer(now_ms));
}

/* Retained adds id to the retained ids unless it is there. */
static void
Retain(int64 **ids, int *n, int64 id)
{
	for (int i = 0; i < *n; i++)
		if ((*ids)[i] == id)
			return;
	(*ids)[(*n)++] = id;
}

/* IsRetained tells whether id is among the retained ids. */
static bool
IsRetained(const int64 *ids, int n, int64 id)
{
	for (int i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/*
 * IcebergMetadataExpireSnapshots removes snapshots older than
 * older_than_ms, as Java's ExpireSnapshots does: every ref's snapshot is
 * kept, and along each branch the ancestors that are among the first
 * min_to_keep (at least 1; a branch's own min-snapshots-to-keep wins) or
 * not older than the cutoff.  Snapshot-log entries up to the last one of
 * a removed snapshot go too.  Returns the removed snapshots as
 * IcebergSnapshotInfo, in table order, so the caller can delete the files
 * only they referenced.  A ref's max-snapshot-age-ms and max-ref-age-ms
 * are not applied (this extension writes no such refs), so refs never
 * expire.
 */
List *
IcebergMetadataExpireSnapshots(IcebergMetadata *md, int64 older_than_ms, int min_to_keep)
{
	json_t	   *snapshots = json_object_get(md->root, "snapshots");
	json_t	   *log = json_object_get(md->root, "snapshot-log");
	int			nsnap = json_array_size(snapshots);
	int64	   *keep = palloc(sizeof(int64) * (nsnap + 1));
	int			nkeep = 0;
	List	   *expired = NIL;
	const char *name;
	json_t	   *ref;
	size_t		i;
	json_t	   *e;
	size_t		cut = 0;

	Retain(&keep, &nkeep, IcebergMetadataCurrentSnapshotId(md));
	json_object_foreach(json_object_get(md->root, "refs"), name, ref)
	{
		int64		id = MdInt(ref, "snapshot-id", ICEBERG_NO_SNAPSHOT);
		int			ref_keep = (int) MdInt(ref, "min-snapshots-to-keep", Max(min_to_keep, 1));
		json_t	   *s = MdFindById(snapshots, "snapshot-id", id);

		Retain(&keep, &nkeep, id);
		if (strcmp(json_string_value(json_object_get(ref, "type")), "branch") != 0)
			continue;
		for (int k = 0; s != NULL && k <= nsnap; k++)
		{
			if (k >= ref_keep && MdInt(s, "timestamp-ms", 0) < older_than_ms)
				break;
			Retain(&keep, &nkeep, MdInt(s, "snapshot-id", 0));
			s = MdFindById(snapshots, "snapshot-id",
						   MdInt(s, "parent-snapshot-id", ICEBERG_NO_SNAPSHOT));
		}
	}

	for (i = 0; i < json_array_size(snapshots);)
	{
		e = json_array_get(snapshots, i);
		if (!IsRetained(keep, nkeep, MdInt(e, "snapshot-id", 0)) &&
			MdInt(e, "timestamp-ms", 0) < older_than_ms)
		{
			expired = lappend(expired, SnapshotInfo(e));
			json_array_remove(snapshots, i);
		}
		else
			i++;
	}
	pfree(keep);

	/* a gap in the log would misstate history: drop all before one */
	json_array_foreach(log, i, e)
	{
		if (!MdFindById(snapshots, "snapshot-id", MdInt(e, "snapshot-id", 0)))
			cut = i + 1;
	}
	while (cut-- > 0)
		json_array_remove(log, 0);
	return expired;
}

/* IcebergMetadataNewSnapshotId returns a random positive id unused in the table. */
int64
IcebergMetadataNewSnapshotId(IcebergMetadata *md)
{
	for (;;)
	{
		uint64		r;
		int64		id;

		if (!pg_strong_random(&r, sizeof(r)))
			elog(ERROR, "could not generate random Iceberg snapshot id");
		id = (int64) (r & PG_INT64_MAX);
		if (id > 0 && !MdFindById(json_object_get(md->root, "snapshots"), "snapshot-id", id))
			return id;
	}
}

/*
 * IcebergMetadataLogPrevious records the metadata file this version was
 * read from (see IcebergMetadataParse, IcebergMetadataSetSource) in the
 * metadata log, once, when a new metadata file is about to be written;
 * it trims the log to write.metadata.previous-versions-max (at least 1)
 * and returns the files that fell off, oldest first, as a List of
 * palloc'd strings.  Returns NIL for a table never written.
 */
List *
IcebergMetadataLogPrevious(IcebergMetadata *md)
{
	json_t	   *log = json_object_get(md->root, "metadata-log");
	const char *maxstr = IcebergMetadataGetProperty(md, "write.metadata.previous-versions-max");
	int64		max = ICEBERG_DEFAULT_PREVIOUS_VERSIONS_MAX;
	List	   *dropped = NIL;
	json_t	   *entry;
	char	   *end;

	if (md->source_file == NULL || md->source_logged)
		return NIL;
	if (maxstr != NULL)
	{
		max = strtoll(maxstr, &end, 10);
		if (*maxstr == '\0' || *end != '\0')
			max = ICEBERG_DEFAULT_PREVIOUS_VERSIONS_MAX;
	}
	max = Max(max, 1);

	entry = MdJson(MdObject());
	MdAppend(log, entry);
	MdPut(entry, "timestamp-ms", json_integer(md->source_updated_ms));
	MdPut(entry, "metadata-file", json_string(md->source_file));
	md->source_logged = true;
	while (json_array_size(log) > max)
	{
		entry = json_array_get(log, 0);
		dropped = lappend(dropped,
						  pstrdup(json_string_value(json_object_get(entry, "metadata-file"))));
		json_array_remove(log, 0);
	}
	return dropped;
}

/*
 * IcebergMetadataSetSource tells the model that its current state was just
 * written to metadata_file, which becomes the previous file of the next.
 */
void
IcebergMetadataSetSource(IcebergMetadata *md, const char *metadata_file)
{
	md->source_file = MemoryContextStrdup(md->context, metadata_file);
	md->source_updated_ms = MdInt(md->root, "last-updated-ms", 0);
	md->source_logged = false;
}

/* IcebergRandomUuid writes a random (version 4) UUID and a zero into buf. */
void
IcebergRandomUuid(char *buf)
{
	uint8		b[16];

	if (!pg_strong_random(b, sizeof(b)))
		elog(ERROR, "could not generate random UUID");
	b[6] = (b[6] & 0x0f) | 0x40;
	b[8] = (b[8] & 0x3f) | 0x80;
	snprintf(buf, ICEBERG_UUID_LEN + 1,
			 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
			 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
			 b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

/* MetadataDir is "<location>/metadata", without a doubled slash. */
static char *
MetadataDir(const char *location)
{
	size_t		len = strlen(location);

	while (len > 0 && location[len - 1] == '/')
		len--;
	return psprintf("%.*s/metadata", (int) len, location);
}

/* IcebergMetadataFilePath is <location>/metadata/NNNNN-<uuid>.metadata.json. */
char *
IcebergMetadataFilePath(const char *location, int version)
{
	char		uuid[ICEBERG_UUID_LEN + 1];

	IcebergRandomUuid(uuid);
	return psprintf("%s/%05d-%s.metadata.json", MetadataDir(location), version, uuid);
}

/*
 * IcebergMetadataFileVersion is the version of a metadata file named
 * NNNNN-<uuid>.metadata.json (the digits before the first '-' of the
 * file name), or -1 for other names.
 */
int
IcebergMetadataFileVersion(const char *path)
{
	const char *name = strrchr(path, '/');
	const char *p;
	int64		v = 0;

	name = name ? name + 1 : path;
	for (p = name; *p >= '0' && *p <= '9'; p++)
		if ((v = v * 10 + (*p - '0')) > PG_INT32_MAX)
			return -1;
	if (p == name || *p != '-' || strstr(p, ".metadata.json") == NULL)
		return -1;
	return (int) v;
}

/* IcebergManifestListPath is <location>/metadata/snap-<id>-<attempt>-<uuid>.avro. */
char *
IcebergManifestListPath(const char *location, int64 snapshot_id, int attempt,
						const char *commit_uuid)
{
	return psprintf("%s/snap-" INT64_FORMAT "-%d-%s.avro", MetadataDir(location),
					snapshot_id, attempt, commit_uuid);
}

/* IcebergManifestPath is <location>/metadata/<uuid>-m<k>.avro. */
char *
IcebergManifestPath(const char *location, const char *commit_uuid, int k)
{
	return psprintf("%s/%s-m%d.avro", MetadataDir(location), commit_uuid, k);
}
