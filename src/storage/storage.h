/*-------------------------------------------------------------------------
 *
 * storage.h
 *	  FileIO: the interface of src/storage/.
 *
 * Locations are absolute URIs.  Only file:// is implemented so far; the
 * interface is what object stores need too: whole-object writes that are
 * either complete or absent, conditional creates, server-side moves,
 * listing by prefix, and deletes that tolerate missing objects.
 *
 * Streaming writes go through a StorageWriter, whose sink matches the
 * Parquet and Avro writers' sinks.  A writer that is not finished leaves
 * nothing at its location.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ICEBERG_EXPORT_STORAGE_H
#define ICEBERG_EXPORT_STORAGE_H

#include "postgres.h"

#include "nodes/pg_list.h"

typedef struct StorageWriter StorageWriter;

/* StorageIsSupported tells whether a location's scheme is implemented. */
extern bool StorageIsSupported(const char *location);

/*
 * StorageWriterOpen starts writing an object.  With exclusive, finishing
 * fails (returns false) when the object already exists.
 */
extern StorageWriter *StorageWriterOpen(const char *location, bool exclusive);

/* StorageWriterSink is a ParquetSinkWrite / AvroSinkWrite for the writer. */
extern void StorageWriterSink(void *writer, const void *data, size_t len);

/* StorageWriterFinish makes the object visible; false if exclusive and taken. */
extern bool StorageWriterFinish(StorageWriter *writer);

/* StorageWriterAbort discards an unfinished object. */
extern void StorageWriterAbort(StorageWriter *writer);

/* StoragePut writes a whole object; false if exclusive and it exists. */
extern bool StoragePut(const char *location, const void *data, size_t len,
					   bool exclusive);

/* StorageGet reads a whole object (NUL-terminated); NULL if missing_ok and absent. */
extern char *StorageGet(const char *location, size_t *len, bool missing_ok);

/* StorageExists tells whether an object exists. */
extern bool StorageExists(const char *location);

/* StorageMove moves an object (a rename on a file system). */
extern void StorageMove(const char *from, const char *to);

/* StorageDelete removes an object; a missing one is not an error. */
extern void StorageDelete(const char *location);

/* StorageDeletePrefix removes every object under a prefix (and, on a file
 * system, the emptied directories). */
extern void StorageDeletePrefix(const char *prefix);

/* StorageListChildren lists the names directly under a prefix (files and
 * directories, like an object store's common prefixes). */
extern List *StorageListChildren(const char *prefix);

/* StorageList lists the objects under a prefix, recursively, as locations. */
extern List *StorageList(const char *prefix);

/* StorageLocalPath returns the file system path of a file:// location. */
extern const char *StorageLocalPath(const char *location);

#endif							/* ICEBERG_EXPORT_STORAGE_H */
