/*-------------------------------------------------------------------------
 *
 * manifest.h
 *	  Iceberg format v2 manifests and manifest lists, written as Avro.
 *
 * A manifest lists data files (IcebergDataFile) with their status in a
 * snapshot; a manifest list lists the manifests (IcebergManifestFile) of
 * one snapshot.  Both writers encode through src/avro/ and hand the bytes
 * to a sink, so where the files go (a local file, S3, ...) is the caller's
 * business.  Only the unpartitioned spec (id 0) is supported so far.
 *
 * IcebergDataFileFromParquetStats (manifest_metrics.c) turns the
 * statistics of a Parquet file we wrote into the data file's metrics, the
 * way Iceberg Java's default metrics mode truncate(16) does.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ICEBERG_EXPORT_MANIFEST_H
#define ICEBERG_EXPORT_MANIFEST_H

#include "postgres.h"

#include "avro/avro.h"
#include "iceberg/iceberg_types.h"
#include "parquet/parquet.h"

/* A sequence number or snapshot id that is not written (null: inherited). */
#define ICEBERG_UNASSIGNED_SEQ INT64CONST(-1)

/* Truncation length of string and binary bounds (metrics mode truncate(16)). */
#define ICEBERG_BOUND_TRUNCATE_LENGTH 16

/* manifest_entry.status */
typedef enum IcebergEntryStatus
{
	ICEBERG_ENTRY_EXISTING = 0,
	ICEBERG_ENTRY_ADDED = 1,
	ICEBERG_ENTRY_DELETED = 2
} IcebergEntryStatus;

/* data_file.content and manifest_file.content */
typedef enum IcebergContent
{
	ICEBERG_CONTENT_DATA = 0,
	ICEBERG_CONTENT_POSITION_DELETES = 1,
	ICEBERG_CONTENT_EQUALITY_DELETES = 2
} IcebergContent;

/* One entry of an int -> long metrics map (column_sizes, value_counts...). */
typedef struct IcebergCountMetric
{
	int32		field_id;
	int64		value;
} IcebergCountMetric;

/* One entry of lower_bounds / upper_bounds: single-value serialization. */
typedef struct IcebergBoundMetric
{
	int32		field_id;
	const uint8 *data;
	int32		len;
} IcebergBoundMetric;

/* A data_file struct (v2, unpartitioned). */
typedef struct IcebergDataFile
{
	IcebergContent content;
	const char *file_path;		/* absolute URI */
	const char *file_format;	/* "PARQUET" */
	int64		record_count;
	int64		file_size_in_bytes;

	int			ncolumn_sizes;
	IcebergCountMetric *column_sizes;
	int			nvalue_counts;
	IcebergCountMetric *value_counts;
	int			nnull_value_counts;
	IcebergCountMetric *null_value_counts;
	int			nnan_value_counts;
	IcebergCountMetric *nan_value_counts;
	int			nlower_bounds;
	IcebergBoundMetric *lower_bounds;
	int			nupper_bounds;
	IcebergBoundMetric *upper_bounds;

	/* row group start offsets, ascending; none: null */
	int			nsplit_offsets;
	int64	   *split_offsets;
	int32		sort_order_id;	/* -1: null */
} IcebergDataFile;

/* A manifest_entry: a data file and its status in the snapshot. */
typedef struct IcebergManifestEntry
{
	IcebergEntryStatus status;
	int64		snapshot_id;	/* ICEBERG_UNASSIGNED_SEQ: inherited */
	int64		sequence_number;	/* data sequence number; unassigned: inherited */
	int64		file_sequence_number;	/* unassigned: inherited */
	const IcebergDataFile *data_file;
} IcebergManifestEntry;

/* A field_summary of manifest_file.partitions. */
typedef struct IcebergFieldSummary
{
	bool		contains_null;
	int			contains_nan;	/* -1 unknown (null), 0 false, 1 true */
	const uint8 *lower_bound;	/* NULL: null */
	int32		lower_bound_len;
	const uint8 *upper_bound;
	int32		upper_bound_len;
} IcebergFieldSummary;

/* A manifest_file record of a manifest list (v2). */
typedef struct IcebergManifestFile
{
	const char *manifest_path;	/* absolute URI */
	int64		manifest_length;
	int32		partition_spec_id;
	IcebergContent content;		/* data or deletes (either kind) */
	int64		sequence_number;	/* unassigned: the list's sequence number */
	int64		min_sequence_number;	/* unassigned: the list's sequence number */
	int64		added_snapshot_id;
	int32		added_files_count;
	int32		existing_files_count;
	int32		deleted_files_count;
	int64		added_rows_count;
	int64		existing_rows_count;
	int64		deleted_rows_count;
	int			npartitions;	/* one per partition field; 0 unpartitioned */
	IcebergFieldSummary *partitions;
} IcebergManifestFile;

/*
 * IcebergDataFileFromParquetStats fills in file's metrics from the
 * statistics of every leaf of a Parquet data file written for schema (a
 * struct with field ids).  Strings and binary bounds are truncated to
 * ICEBERG_BOUND_TRUNCATE_LENGTH; leaves inside lists and maps get only a
 * column size.  The other fields of file are left as they are.  Memory
 * comes from CurrentMemoryContext.
 */
extern void IcebergDataFileFromParquetStats(IcebergDataFile *file,
											const IcebergType *schema,
											const ParquetColumnStats *stats,
											int nstats);

/*
 * IcebergSingleValueFromParquet converts a Parquet PLAIN bound of a leaf
 * of type type to Iceberg's single-value binary serialization, truncated
 * for a lower or an upper bound.  Returns false when there is no such
 * bound (an upper bound that cannot be truncated, invalid UTF-8).
 */
extern bool IcebergSingleValueFromParquet(const IcebergType *type,
										  const uint8 *value, int32 len,
										  bool upper,
										  uint8 **out, int32 *outlen);

/* Manifests. ------------------------------------------------------------ */

typedef struct IcebergManifestWriter IcebergManifestWriter;

/*
 * IcebergManifestWriterCreate starts a data manifest of the unpartitioned
 * spec 0, written for table schema schema_json (the schema object as in
 * table metadata) with id schema_id, added by snapshot snapshot_id.
 */
extern IcebergManifestWriter *IcebergManifestWriterCreate(const char *schema_json,
														  int32 schema_id,
														  int64 snapshot_id,
														  AvroSinkWrite sink,
														  void *sink_arg);

/* IcebergManifestWriterAddEntry appends one manifest_entry. */
extern void IcebergManifestWriterAddEntry(IcebergManifestWriter *writer,
										  const IcebergManifestEntry *entry);

/*
 * IcebergManifestWriterAddFile appends a data file added by the writer's
 * snapshot, with sequence numbers inherited.
 */
extern void IcebergManifestWriterAddFile(IcebergManifestWriter *writer,
										 const IcebergDataFile *file);

/*
 * IcebergManifestWriterClose ends the manifest and returns its length; it
 * fills in *manifest (if not NULL) for the manifest list, all but
 * manifest_path, with sequence numbers left to the list to assign.
 */
extern int64 IcebergManifestWriterClose(IcebergManifestWriter *writer,
										IcebergManifestFile *manifest);

/* IcebergManifestWriterDestroy frees the writer. */
extern void IcebergManifestWriterDestroy(IcebergManifestWriter *writer);

/* Manifest lists. ------------------------------------------------------- */

typedef struct IcebergManifestListWriter IcebergManifestListWriter;

/*
 * IcebergManifestListWriterCreate starts the manifest list of snapshot
 * snapshot_id with sequence number sequence_number; parent_snapshot_id is
 * ICEBERG_UNASSIGNED_SEQ for a snapshot without parent.
 */
extern IcebergManifestListWriter *IcebergManifestListWriterCreate(int64 snapshot_id,
																  int64 parent_snapshot_id,
																  int64 sequence_number,
																  AvroSinkWrite sink,
																  void *sink_arg);

/*
 * IcebergManifestListWriterAdd appends one manifest_file; unassigned
 * sequence numbers of a manifest added by this snapshot become the list's.
 */
extern void IcebergManifestListWriterAdd(IcebergManifestListWriter *writer,
										 const IcebergManifestFile *manifest);

/* IcebergManifestListWriterClose ends the list and returns its length. */
extern int64 IcebergManifestListWriterClose(IcebergManifestListWriter *writer);

/* IcebergManifestListWriterDestroy frees the writer. */
extern void IcebergManifestListWriterDestroy(IcebergManifestListWriter *writer);

#endif							/* ICEBERG_EXPORT_MANIFEST_H */
