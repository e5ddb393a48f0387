/*-------------------------------------------------------------------------
 *
 * manifest.c
 *	  Iceberg v2 manifests and manifest lists.
 *
 * The Avro schemas are those of Iceberg Java's V2Metadata (manifest_entry
 * with data_file r2 and an empty partition record r102 for the
 * unpartitioned spec; manifest_file), with every field id, so readers
 * resolve fields by id.  Int-keyed maps are arrays of key/value records
 * with "logicalType": "map", as Java writes them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "iceberg/manifest.h"

/* The manifest_entry schema of a v2 data manifest of an unpartitioned spec. */
static const char *const ManifestEntrySchema =
"{\"type\":\"record\",\"name\":\"manifest_entry\",\"fields\":["
"{\"name\":\"status\",\"type\":\"int\",\"field-id\":0},"
"{\"name\":\"snapshot_id\",\"type\":[\"null\",\"long\"],\"default\":null,\"field-id\":1},"
"{\"name\":\"sequence_number\",\"type\":[\"null\",\"long\"],\"default\":null,\"field-id\":3},"
"{\"name\":\"file_sequence_number\",\"type\":[\"null\",\"long\"],\"default\":null,\"field-id\":4},"
"{\"name\":\"data_file\",\"field-id\":2,\"type\":{\"type\":\"record\",\"name\":\"r2\",\"fields\":["
"{\"name\":\"content\",\"type\":\"int\",\"field-id\":134},"
"{\"name\":\"file_path\",\"type\":\"string\",\"field-id\":100},"
"{\"name\":\"file_format\",\"type\":\"string\",\"field-id\":101},"
"{\"name\":\"partition\",\"field-id\":102,\"type\":{\"type\":\"record\",\"name\":\"r102\",\"fields\":[]}},"
"{\"name\":\"record_count\",\"type\":\"long\",\"field-id\":103},"
"{\"name\":\"file_size_in_bytes\",\"type\":\"long\",\"field-id\":104},"
"{\"name\":\"column_sizes\",\"default\":null,\"field-id\":108,\"type\":[\"null\",{\"type\":\"array\",\"logicalType\":\"map\","
"\"items\":{\"type\":\"record\",\"name\":\"k117_v118\",\"fields\":["
"{\"name\":\"key\",\"type\":\"int\",\"field-id\":117},{\"name\":\"value\",\"type\":\"long\",\"field-id\":118}]}}]},"
"{\"name\":\"value_counts\",\"default\":null,\"field-id\":109,\"type\":[\"null\",{\"type\":\"array\",\"logicalType\":\"map\","
"\"items\":{\"type\":\"record\",\"name\":\"k119_v120\",\"fields\":["
"{\"name\":\"key\",\"type\":\"int\",\"field-id\":119},{\"name\":\"value\",\"type\":\"long\",\"field-id\":120}]}}]},"
"{\"name\":\"null_value_counts\",\"default\":null,\"field-id\":110,\"type\":[\"null\",{\"type\":\"array\",\"logicalType\":\"map\","
"\"items\":{\"type\":\"record\",\"name\":\"k121_v122\",\"fields\":["
"{\"name\":\"key\",\"type\":\"int\",\"field-id\":121},{\"name\":\"value\",\"type\":\"long\",\"field-id\":122}]}}]},"
"{\"name\":\"nan_value_counts\",\"default\":null,\"field-id\":137,\"type\":[\"null\",{\"type\":\"array\",\"logicalType\":\"map\","
"\"items\":{\"type\":\"record\",\"name\":\"k138_v139\",\"fields\":["
"{\"name\":\"key\",\"type\":\"int\",\"field-id\":138},{\"name\":\"value\",\"type\":\"long\",\"field-id\":139}]}}]},"
"{\"name\":\"lower_bounds\",\"default\":null,\"field-id\":125,\"type\":[\"null\",{\"type\":\"array\",\"logicalType\":\"map\","
"\"items\":{\"type\":\"record\",\"name\":\"k126_v127\",\"fields\":["
"{\"name\":\"key\",\"type\":\"int\",\"field-id\":126},{\"name\":\"value\",\"type\":\"bytes\",\"field-id\":127}]}}]},"
"{\"name\":\"upper_bounds\",\"default\":null,\"field-id\":128,\"type\":[\"null\",{\"type\":\"array\",\"logicalType\":\"map\","
"\"items\":{\"type\":\"record\",\"name\":\"k129_v130\",\"fields\":["
"{\"name\":\"key\",\"type\":\"int\",\"field-id\":129},{\"name\":\"value\",\"type\":\"bytes\",\"field-id\":130}]}}]},"
"{\"name\":\"key_metadata\",\"type\":[\"null\",\"bytes\"],\"default\":null,\"field-id\":131},"
"{\"name\":\"split_offsets\",\"type\":[\"null\",{\"type\":\"array\",\"items\":\"long\",\"element-id\":133}],\"default\":null,\"field-id\":132},"
"{\"name\":\"equality_ids\",\"type\":[\"null\",{\"type\":\"array\",\"items\":\"int\",\"element-id\":136}],\"default\":null,\"field-id\":135},"
"{\"name\":\"sort_order_id\",\"type\":[\"null\",\"int\"],\"default\":null,\"field-id\":140},"
"{\"name\":\"referenced_data_file\",\"type\":[\"null\",\"string\"],\"default\":null,\"field-id\":143}"
"]}}]}";

/* The manifest_file schema of a v2 manifest list. */
static const char *const ManifestFileSchema =
"{\"type\":\"record\",\"name\":\"manifest_file\",\"fields\":["
"{\"name\":\"manifest_path\",\"type\":\"string\",\"field-id\":500},"
"{\"name\":\"manifest_length\",\"type\":\"long\",\"field-id\":501},"
"{\"name\":\"partition_spec_id\",\"type\":\"int\",\"field-id\":502},"
"{\"name\":\"content\",\"type\":\"int\",\"field-id\":517},"
"{\"name\":\"sequence_number\",\"type\":\"long\",\"field-id\":515},"
"{\"name\":\"min_sequence_number\",\"type\":\"long\",\"field-id\":516},"
"{\"name\":\"added_snapshot_id\",\"type\":\"long\",\"field-id\":503},"
"{\"name\":\"added_files_count\",\"type\":\"int\",\"field-id\":504},"
"{\"name\":\"existing_files_count\",\"type\":\"int\",\"field-id\":505},"
"{\"name\":\"deleted_files_count\",\"type\":\"int\",\"field-id\":506},"
"{\"name\":\"added_rows_count\",\"type\":\"long\",\"field-id\":512},"
"{\"name\":\"existing_rows_count\",\"type\":\"long\",\"field-id\":513},"
"{\"name\":\"deleted_rows_count\",\"type\":\"long\",\"field-id\":514},"
"{\"name\":\"partitions\",\"type\":[\"null\",{\"type\":\"array\",\"element-id\":508,"
"\"items\":{\"type\":\"record\",\"name\":\"r508\",\"fields\":["
"{\"name\":\"contains_null\",\"type\":\"boolean\",\"field-id\":509},"
"{\"name\":\"contains_nan\",\"type\":[\"null\",\"boolean\"],\"default\":null,\"field-id\":518},"
"{\"name\":\"lower_bound\",\"type\":[\"null\",\"bytes\"],\"default\":null,\"field-id\":510},"
"{\"name\":\"upper_bound\",\"type\":[\"null\",\"bytes\"],\"default\":null,\"field-id\":511}]}}],"
"\"default\":null,\"field-id\":507},"
"{\"name\":\"key_metadata\",\"type\":[\"null\",\"bytes\"],\"default\":null,\"field-id\":519}"
"]}";

struct IcebergManifestWriter
{
	AvroWriter *avro;
	int64		snapshot_id;
	int64		min_data_sequence_number;	/* of live entries; unassigned if none */
	IcebergManifestFile summary;
};

struct IcebergManifestListWriter
{
	AvroWriter *avro;
	int64		snapshot_id;
	int64		sequence_number;
};

/* Manifests. ------------------------------------------------------------ */

/* IcebergWriteCountMap writes an int -> long map, or null when empty. */
static void
IcebergWriteCountMap(AvroWriter *avro, const IcebergCountMetric *m, int n)
{
	if (n == 0)
	{
		AvroWriteUnionBranch(avro, 0);
		return;
	}
	AvroWriteUnionBranch(avro, 1);
	AvroWriteArrayStart(avro, n);
	for (int i = 0; i < n; i++)
	{
		AvroWriteInt(avro, m[i].field_id);
		AvroWriteLong(avro, m[i].value);
	}
	AvroWriteArrayEnd(avro);
}

/* IcebergWriteBoundMap writes an int -> binary map, or null when empty. */
static void
IcebergWriteBoundMap(AvroWriter *avro, const IcebergBoundMetric *m, int n)
{
	if (n == 0)
	{
		AvroWriteUnionBranch(avro, 0);
		return;
	}
	AvroWriteUnionBranch(avro, 1);
	AvroWriteArrayStart(avro, n);
	for (int i = 0; i < n; i++)
	{
		AvroWriteInt(avro, m[i].field_id);
		AvroWriteBytes(avro, m[i].data, m[i].len);
	}
	AvroWriteArrayEnd(avro);
}

/* IcebergWriteOptionalLong writes a ["null","long"] union; unassigned is null. */
static void
IcebergWriteOptionalLong(AvroWriter *avro, int64 value)
{
	if (value == ICEBERG_UNASSIGNED_SEQ)
		AvroWriteUnionBranch(avro, 0);
	else
	{
		AvroWriteUnionBranch(avro, 1);
		AvroWriteLong(avro, value);
	}
}

/* IcebergManifestWriterCreate starts a v2 data manifest of spec 0. */
IcebergManifestWriter *
IcebergManifestWriterCreate(const char *schema_json, int32 schema_id, int64 snapshot_id,
							AvroSinkWrite sink, void *sink_arg)
{
	IcebergManifestWriter *writer = palloc0(sizeof(IcebergManifestWriter));
	char		id[32];

	if (snapshot_id < 0)
		elog(ERROR, "invalid snapshot id " INT64_FORMAT " for a manifest", snapshot_id);
	writer->avro = AvroWriterCreate(ManifestEntrySchema, AVRO_CODEC_DEFLATE, sink, sink_arg);
	writer->snapshot_id = snapshot_id;
	writer->min_data_sequence_number = ICEBERG_UNASSIGNED_SEQ;
	writer->summary.partition_spec_id = 0;
	writer->summary.content = ICEBERG_CONTENT_DATA;
	writer->summary.added_snapshot_id = snapshot_id;

	snprintf(id, sizeof(id), "%d", schema_id);
	AvroWriterAddMetadata(writer->avro, "schema", schema_json);
	AvroWriterAddMetadata(writer->avro, "schema-id", id);
	AvroWriterAddMetadata(writer->avro, "partition-spec", "[]");
	AvroWriterAddMetadata(writer->avro, "partition-spec-id", "0");
	AvroWriterAddMetadata(writer->avro, "format-version", "2");
	AvroWriterAddMetadata(writer->avro, "content", "data");
	return writer;
}

/* IcebergManifestCount adds one to a file count, which is an Avro int. */
static void
IcebergManifestCount(int32 *files, int64 *rows, int64 record_count)
{
	if (*files == PG_INT32_MAX)
		elog(ERROR, "too many files in one manifest");
	(*files)++;
	*rows += record_count;
}

/*
 * IcebergManifestWriterAddEntry appends one manifest_entry, checking the
 * spec's sequence number rules: EXISTING and DELETED entries carry both
 * sequence numbers, and a DELETED entry the deleting snapshot's id.
 */
void
IcebergManifestWriterAddEntry(IcebergManifestWriter *writer,
							  const IcebergManifestEntry *entry)
{
	AvroWriter *avro = writer->avro;
	const IcebergDataFile *f = entry->data_file;

	if (f->content != ICEBERG_CONTENT_DATA)
		elog(ERROR, "delete file \"%s\" added to a data manifest", f->file_path);
	switch (entry->status)
	{
		case ICEBERG_ENTRY_ADDED:
			IcebergManifestCount(&writer->summary.added_files_count,
								 &writer->summary.added_rows_count, f->record_count);
			break;
		case ICEBERG_ENTRY_EXISTING:
		case ICEBERG_ENTRY_DELETED:
			if (entry->sequence_number == ICEBERG_UNASSIGNED_SEQ ||
				entry->file_sequence_number == ICEBERG_UNASSIGNED_SEQ ||
				entry->snapshot_id == ICEBERG_UNASSIGNED_SEQ)
				elog(ERROR, "manifest entry of status %d for \"%s\" lacks a sequence number or snapshot id",
					 (int) entry->status, f->file_path);
			if (entry->status == ICEBERG_ENTRY_DELETED)
			{
				if (entry->snapshot_id != writer->snapshot_id)
					elog(ERROR, "deleted manifest entry for \"%s\" must carry the deleting snapshot's id",
						 f->file_path);
				IcebergManifestCount(&writer->summary.deleted_files_count,
									 &writer->summary.deleted_rows_count, f->record_count);
			}
			else
				IcebergManifestCount(&writer->summary.existing_files_count,
									 &writer->summary.existing_rows_count, f->record_count);
			break;
		default:
			elog(ERROR, "invalid manifest entry status %d", (int) entry->status);
	}
	if (entry->status != ICEBERG_ENTRY_DELETED &&
		entry->sequence_number != ICEBERG_UNASSIGNED_SEQ &&
		(writer->min_data_sequence_number == ICEBERG_UNASSIGNED_SEQ ||
		 entry->sequence_number < writer->min_data_sequence_number))
		writer->min_data_sequence_number = entry->sequence_number;

	AvroWriteInt(avro, (int32) entry->status);
	IcebergWriteOptionalLong(avro, entry->snapshot_id);
	IcebergWriteOptionalLong(avro, entry->sequence_number);
	IcebergWriteOptionalLong(avro, entry->file_sequence_number);

	/* data_file r2 */
	AvroWriteInt(avro, (int32) f->content);
	AvroWriteString(avro, f->file_path);
	AvroWriteString(avro, f->file_format);
	/* partition r102 has no fields */
	AvroWriteLong(avro, f->record_count);
	AvroWriteLong(avro, f->file_size_in_bytes);
	IcebergWriteCountMap(avro, f->column_sizes, f->ncolumn_sizes);
	IcebergWriteCountMap(avro, f->value_counts, f->nvalue_counts);
	IcebergWriteCountMap(avro, f->null_value_counts, f->nnull_value_counts);
	IcebergWriteCountMap(avro, f->nan_value_counts, f->nnan_value_counts);
	IcebergWriteBoundMap(avro, f->lower_bounds, f->nlower_bounds);
	IcebergWriteBoundMap(avro, f->upper_bounds, f->nupper_bounds);
	AvroWriteUnionBranch(avro, 0);	/* key_metadata */
	if (f->nsplit_offsets > 0)
	{
		AvroWriteUnionBranch(avro, 1);
		AvroWriteArrayStart(avro, f->nsplit_offsets);
		for (int i = 0; i < f->nsplit_offsets; i++)
			AvroWriteLong(avro, f->split_offsets[i]);
		AvroWriteArrayEnd(avro);
	}
	else
		AvroWriteUnionBranch(avro, 0);
	AvroWriteUnionBranch(avro, 0);	/* equality_ids */
	if (f->sort_order_id >= 0)
	{
		AvroWriteUnionBranch(avro, 1);
		AvroWriteInt(avro, f->sort_order_id);
	}
	else
		AvroWriteUnionBranch(avro, 0);
	AvroWriteUnionBranch(avro, 0);	/* referenced_data_file */
	AvroRecordEnd(avro);
}

/* IcebergManifestWriterAddFile appends a file added by the writer's snapshot. */
void
IcebergManifestWriterAddFile(IcebergManifestWriter *writer, const IcebergDataFile *file)
{
	IcebergManifestEntry entry;

	entry.status = ICEBERG_ENTRY_ADDED;
	entry.snapshot_id = writer->snapshot_id;
	entry.sequence_number = ICEBERG_UNASSIGNED_SEQ;
	entry.file_sequence_number = ICEBERG_UNASSIGNED_SEQ;
	entry.data_file = file;
	IcebergManifestWriterAddEntry(writer, &entry);
}

/* IcebergManifestWriterClose ends the manifest and summarizes it. */
int64
IcebergManifestWriterClose(IcebergManifestWriter *writer, IcebergManifestFile *manifest)
{
	int64		length = AvroWriterClose(writer->avro);

	if (manifest != NULL)
	{
		*manifest = writer->summary;
		manifest->manifest_path = NULL;
		manifest->manifest_length = length;
		manifest->sequence_number = ICEBERG_UNASSIGNED_SEQ;
		manifest->min_sequence_number = writer->min_data_sequence_number;
		manifest->npartitions = 0;
		manifest->partitions = NULL;
	}
	return length;
}

/* IcebergManifestWriterDestroy frees the writer. */
void
IcebergManifestWriterDestroy(IcebergManifestWriter *writer)
{
	AvroWriterDestroy(writer->avro);
	pfree(writer);
}

/* Manifest lists. ------------------------------------------------------- */

/* IcebergManifestListWriterCreate starts the manifest list of a snapshot. */
IcebergManifestListWriter *
IcebergManifestListWriterCreate(int64 snapshot_id, int64 parent_snapshot_id,
								int64 sequence_number, AvroSinkWrite sink, void *sink_arg)
{
	IcebergManifestListWriter *writer = palloc0(sizeof(IcebergManifestListWriter));
	char		buf[32];

	if (snapshot_id < 0 || sequence_number < 0)
		elog(ERROR, "invalid snapshot id " INT64_FORMAT " or sequence number " INT64_FORMAT,
			 snapshot_id, sequence_number);
	writer->avro = AvroWriterCreate(ManifestFileSchema, AVRO_CODEC_DEFLATE, sink, sink_arg);
	writer->snapshot_id = snapshot_id;
	writer->sequence_number = sequence_number;

	snprintf(buf, sizeof(buf), INT64_FORMAT, snapshot_id);
	AvroWriterAddMetadata(writer->avro, "snapshot-id", buf);
	if (parent_snapshot_id == ICEBERG_UNASSIGNED_SEQ)
		strlcpy(buf, "null", sizeof(buf));
	else
		snprintf(buf, sizeof(buf), INT64_FORMAT, parent_snapshot_id);
	AvroWriterAddMetadata(writer->avro, "parent-snapshot-id", buf);
	snprintf(buf, sizeof(buf), INT64_FORMAT, sequence_number);
	AvroWriterAddMetadata(writer->avro, "sequence-number", buf);
	AvroWriterAddMetadata(writer->avro, "format-version", "2");
	return writer;
}

/* IcebergListSequenceNumber resolves an unassigned sequence number of a manifest. */
static int64
IcebergListSequenceNumber(IcebergManifestListWriter *writer,
						  const IcebergManifestFile *m, int64 value)
{
	if (value != ICEBERG_UNASSIGNED_SEQ)
		return value;
	if (m->added_snapshot_id != writer->snapshot_id)
		elog(ERROR, "manifest \"%s\" of snapshot " INT64_FORMAT " has no sequence number",
			 m->manifest_path, m->added_snapshot_id);
	return writer->sequence_number;
}

/* IcebergWriteOptionalBytes writes a ["null","bytes"] union. */
static void
IcebergWriteOptionalBytes(AvroWriter *avro, const uint8 *data, int32 len)
{
	if (data == NULL)
		AvroWriteUnionBranch(avro, 0);
	else
	{
		AvroWriteUnionBranch(avro, 1);
		AvroWriteBytes(avro, data, len);
	}
}

/* IcebergManifestListWriterAdd appends one manifest_file record. */
void
IcebergManifestListWriterAdd(IcebergManifestListWriter *writer,
							 const IcebergManifestFile *m)
{
	AvroWriter *avro = writer->avro;

	if (m->manifest_path == NULL)
		elog(ERROR, "manifest without a path added to a manifest list");
	AvroWriteString(avro, m->manifest_path);
	AvroWriteLong(avro, m->manifest_length);
	AvroWriteInt(avro, m->partition_spec_id);
	AvroWriteInt(avro, (int32) m->content);
	AvroWriteLong(avro, IcebergListSequenceNumber(writer, m, m->sequence_number));
	AvroWriteLong(avro, IcebergListSequenceNumber(writer, m, m->min_sequence_number));
	AvroWriteLong(avro, m->added_snapshot_id);
	AvroWriteInt(avro, m->added_files_count);
	AvroWriteInt(avro, m->existing_files_count);
	AvroWriteInt(avro, m->deleted_files_count);
	AvroWriteLong(avro, m->added_rows_count);
	AvroWriteLong(avro, m->existing_rows_count);
	AvroWriteLong(avro, m->deleted_rows_count);

	AvroWriteUnionBranch(avro, 1);
	AvroWriteArrayStart(avro, m->npartitions);
	for (int i = 0; i < m->npartitions; i++)
	{
		const IcebergFieldSummary *s = &m->partitions[i];

		AvroWriteBoolean(avro, s->contains_null);
		if (s->contains_nan < 0)
			AvroWriteUnionBranch(avro, 0);
		else
		{
			AvroWriteUnionBranch(avro, 1);
			AvroWriteBoolean(avro, s->contains_nan > 0);
		}
		IcebergWriteOptionalBytes(avro, s->lower_bound, s->lower_bound_len);
		IcebergWriteOptionalBytes(avro, s->upper_bound, s->upper_bound_len);
	}
	AvroWriteArrayEnd(avro);
	AvroWriteUnionBranch(avro, 0);	/* key_metadata */
	AvroRecordEnd(avro);
}

/* IcebergManifestListWriterClose ends the list and returns its length. */
int64
IcebergManifestListWriterClose(IcebergManifestListWriter *writer)
{
	return AvroWriterClose(writer->avro);
}

/* IcebergManifestListWriterDestroy frees the writer. */
void
IcebergManifestListWriterDestroy(IcebergManifestListWriter *writer)
{
	AvroWriterDestroy(writer->avro);
	pfree(writer);
}
