/*-------------------------------------------------------------------------
 *
 * metadata.h
 *	  Iceberg v2 table metadata in memory: create, parse, change, serialize.
 *
 * An IcebergMetadata holds the table metadata JSON as a jansson tree and
 * changes it in place: new snapshots, schema evolution, properties,
 * snapshot expiry and the metadata log.  It lives in its own memory
 * context whose reset callback releases the jansson tree, so an error
 * anywhere leaks nothing; IcebergMetadataFree deletes it.  Strings and
 * lists handed back to callers are allocated in the caller's
 * CurrentMemoryContext and outlive the model.
 *
 * This header does not include jansson.h, so files that include
 * utils/builtins.h (whose json_object clashes with jansson's) can use it.
 * Functions that take or return a jansson value declare it as
 * struct json_t; the caller owns every reference returned.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ICEBERG_EXPORT_METADATA_H
#define ICEBERG_EXPORT_METADATA_H

#include "postgres.h"

#include "iceberg/iceberg_types.h"
#include "nodes/pg_list.h"

struct json_t;

/* Default of write.metadata.previous-versions-max. */
#define ICEBERG_DEFAULT_PREVIOUS_VERSIONS_MAX 100

/* Length of a UUID in text form, without the terminating zero. */
#define ICEBERG_UUID_LEN 36

/* "No snapshot" for current-snapshot-id and parent ids. */
#define ICEBERG_NO_SNAPSHOT ((int64) -1)

/*
 * The model.  Treat the fields as private: use the functions below.
 */
typedef struct IcebergMetadata
{
	MemoryContext context;		/* owns this struct */
	struct json_t *root;		/* the metadata object (one reference) */
	char	   *source_file;	/* metadata file this version was read from */
	int64		source_updated_ms;	/* its last-updated-ms */
	bool		source_logged;	/* source already put in metadata-log */
} IcebergMetadata;

/* One table property. */
typedef struct IcebergProperty
{
	const char *key;
	const char *value;
} IcebergProperty;

/* What the caller knows of a new snapshot. */
typedef struct IcebergSnapshotSpec
{
	int64		snapshot_id;	/* positive, unique in the table */
	int64		timestamp_ms;
	const char *operation;		/* append, overwrite, delete or replace */
	const char *manifest_list;	/* absolute location */
	int64		added_data_files;
	int64		added_records;
	int64		added_files_size;
	int64		deleted_data_files;
	int64		deleted_records;
	int64		removed_files_size;
	int			nextra;			/* more summary entries, e.g. */
	const IcebergProperty *extra;	/* iceberg-export.run-id */
} IcebergSnapshotSpec;

/* A snapshot as listed by IcebergMetadataSnapshots and expiry. */
typedef struct IcebergSnapshotInfo
{
	int64		snapshot_id;
	int64		parent_id;		/* ICEBERG_NO_SNAPSHOT if none */
	int64		sequence_number;
	int64		timestamp_ms;
	char	   *manifest_list;
} IcebergSnapshotInfo;

/* creating, parsing, serializing (metadata.c; the rest in metadata_ops.c) */
extern IcebergMetadata *IcebergMetadataCreate(const char *location,
											  const IcebergType *schema,
											  const IcebergProperty *properties,
											  int nproperties,
											  int64 now_ms);
extern IcebergMetadata *IcebergMetadataParse(const char *json,
											 const char *source_file);
extern char *IcebergMetadataSerialize(IcebergMetadata *md, bool pretty);
extern void IcebergMetadataFree(IcebergMetadata *md);

/* reading */
extern const char *IcebergMetadataTableUuid(IcebergMetadata *md);
extern const char *IcebergMetadataLocation(IcebergMetadata *md);
extern int64 IcebergMetadataCurrentSnapshotId(IcebergMetadata *md);
extern int64 IcebergMetadataLastSequenceNumber(IcebergMetadata *md);
extern int	IcebergMetadataCurrentSchemaId(IcebergMetadata *md);
extern const char *IcebergMetadataGetProperty(IcebergMetadata *md,
											  const char *key);
extern List *IcebergMetadataSnapshots(IcebergMetadata *md);
extern const char *IcebergMetadataSnapshotSummary(IcebergMetadata *md,
												  int64 snapshot_id,
												  const char *key);

/* changing */
extern void IcebergMetadataAddSnapshot(IcebergMetadata *md,
									   const IcebergSnapshotSpec *spec);
extern void IcebergMetadataSetProperty(IcebergMetadata *md, const char *key,
									   const char *value);
extern bool IcebergMetadataRemoveProperty(IcebergMetadata *md,
										  const char *key);
extern void IcebergMetadataSetLastUpdated(IcebergMetadata *md, int64 now_ms);
extern List *IcebergMetadataExpireSnapshots(IcebergMetadata *md,
											int64 older_than_ms,
											int min_to_keep);
extern int64 IcebergMetadataNewSnapshotId(IcebergMetadata *md);

/* the metadata log (one call per new metadata file) */
extern List *IcebergMetadataLogPrevious(IcebergMetadata *md);
extern void IcebergMetadataSetSource(IcebergMetadata *md,
									 const char *metadata_file);

/* file names */
extern void IcebergRandomUuid(char *buf);
extern char *IcebergMetadataFilePath(const char *location, int version);
extern int	IcebergMetadataFileVersion(const char *path);
extern char *IcebergManifestListPath(const char *location, int64 snapshot_id,
									 int attempt, const char *commit_uuid);
extern char *IcebergManifestPath(const char *location,
								 const char *commit_uuid, int k);

/* schemas (schema_json.c) */
extern struct json_t *IcebergSchemaToJson(const IcebergType *schema,
										  int schema_id);
extern IcebergType *IcebergSchemaFromJson(const struct json_t *json,
										  int *schema_id);
extern char *IcebergSchemaSerialize(const IcebergType *schema, int schema_id);
extern IcebergType *IcebergSchemaParse(const char *json, int *schema_id);
extern int	IcebergMetadataAddSchema(IcebergMetadata *md,
									 const IcebergType *schema);
extern IcebergType *IcebergMetadataCurrentSchema(IcebergMetadata *md);

/* helpers shared by metadata.c, metadata_ops.c and schema_json.c only */
extern struct json_t *MdObject(void);
extern struct json_t *MdJson(struct json_t *value);
extern void MdPut(struct json_t *object, const char *key, struct json_t *value);
extern void MdAppend(struct json_t *array, struct json_t *value);
extern int64 MdInt(const struct json_t *object, const char *key, int64 dflt);
extern struct json_t *MdFindById(const struct json_t *array, const char *key,
								 int64 id);
extern void MdCheckPropertyKey(const char *key);

#endif							/* ICEBERG_EXPORT_METADATA_H */
