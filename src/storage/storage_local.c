/*-------------------------------------------------------------------------
 *
 * storage_local.c
 *	  FileIO for file:// locations.
 *
 * Objects are written to a temporary file beside their location, fsynced,
 * and then renamed into place (or hard-linked for exclusive creates, which
 * fails when the name is taken), so an object is either complete or
 * absent.  Parent directories are created as needed.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file_perm.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "storage/storage.h"

#define STORAGE_FILE_PREFIX "file://"

struct StorageWriter
{
	char	   *path;			/* final path */
	char	   *tmppath;
	FILE	   *file;
	bool		exclusive;
};

/* StorageIsSupported tells whether a location's scheme is implemented. */
bool
StorageIsSupported(const char *location)
{
	return strncmp(location, STORAGE_FILE_PREFIX, strlen(STORAGE_FILE_PREFIX)) == 0 &&
		location[strlen(STORAGE_FILE_PREFIX)] == '/';
}

/* StorageLocalPath returns the file system path of a file:// location. */
const char *
StorageLocalPath(const char *location)
{
	if (!StorageIsSupported(location))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("unsupported storage location \"%s\"", location),
				 errhint("Locations of local destinations start with file:///.")));
	return location + strlen(STORAGE_FILE_PREFIX);
}

/* StorageMakeParents creates the directories above path. */
static void
StorageMakeParents(const char *path)
{
	char	   *dir = pstrdup(path);
	char	   *slash = strrchr(dir, '/');

	if (slash != NULL && slash != dir)
	{
		*slash = '\0';
		if (pg_mkdir_p(dir, pg_dir_create_mode) != 0 && errno != EEXIST)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not create directory \"%s\": %m", dir)));
	}
	pfree(dir);
}

/* StorageWriterOpen starts writing an object. */
StorageWriter *
StorageWriterOpen(const char *location, bool exclusive)
{
	StorageWriter *writer = palloc0(sizeof(StorageWriter));

	writer->path = pstrdup(StorageLocalPath(location));
	writer->tmppath = psprintf("%s.%d.tmp", writer->path, MyProcPid);
	writer->exclusive = exclusive;
	StorageMakeParents(writer->path);
	writer->file = AllocateFile(writer->tmppath, PG_BINARY_W);
	if (writer->file == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create file \"%s\": %m", writer->tmppath)));
	return writer;
}

/* StorageWriterSink appends bytes to the object being written. */
void
StorageWriterSink(void *arg, const void *data, size_t len)
{
	StorageWriter *writer = (StorageWriter *) arg;

	errno = 0;
	if (fwrite(data, 1, len, writer->file) != len)
	{
		if (errno == 0)
			errno = ENOSPC;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write to file \"%s\": %m", writer->tmppath)));
	}
}

/* StorageWriterFinish syncs the object and puts it in place. */
bool
StorageWriterFinish(StorageWriter *writer)
{
	bool		placed = true;

	if (fflush(writer->file) != 0 || pg_fsync(fileno(writer->file)) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write file \"%s\": %m", writer->tmppath)));
	if (FreeFile(writer->file) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not close file \"%s\": %m", writer->tmppath)));
	writer->file = NULL;

	if (writer->exclusive)
	{
		/* link() fails when the name exists: a conditional create */
		if (link(writer->tmppath, writer->path) != 0)
		{
			if (errno != EEXIST)
				ereport(ERROR,
						(errcode_for_file_access(),
						 errmsg("could not create file \"%s\": %m", writer->path)));
			placed = false;
		}
		unlink(writer->tmppath);
		if (placed)
		{
			char	   *dir = pstrdup(writer->path);

			*strrchr(dir, '/') = '\0';
			fsync_fname(writer->path, false);
			fsync_fname(dir, true);
			pfree(dir);
		}
	}
	else
		durable_rename(writer->tmppath, writer->path, ERROR);
	return placed;
}

/* StorageWriterAbort discards an unfinished object. */
void
StorageWriterAbort(StorageWriter *writer)
{
	if (writer->file != NULL)
		FreeFile(writer->file);
	writer->file = NULL;
	unlink(writer->tmppath);
}

/* StoragePut writes a whole object. */
bool
StoragePut(const char *location, const void *data, size_t len, bool exclusive)
{
	StorageWriter *writer = StorageWriterOpen(location, exclusive);

	PG_TRY();
	{
		StorageWriterSink(writer, data, len);
	}
	PG_CATCH();
	{
		StorageWriterAbort(writer);
		PG_RE_THROW();
	}
	PG_END_TRY();
	return StorageWriterFinish(writer);
}

/* StorageGet reads a whole object. */
char *
StorageGet(const char *location, size_t *len, bool missing_ok)
{
	const char *path = StorageLocalPath(location);
	FILE	   *file = AllocateFile(path, PG_BINARY_R);
	struct stat st;
	char	   *data;

	if (file == NULL)
	{
		if (missing_ok && errno == ENOENT)
			return NULL;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\": %m", path)));
	}
	if (fstat(fileno(file), &st) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not stat file \"%s\": %m", path)));
	data = palloc_extended(st.st_size + 1, MCXT_ALLOC_HUGE);
	if (fread(data, 1, st.st_size, file) != (size_t) st.st_size)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read file \"%s\": %m", path)));
	FreeFile(file);
	data[st.st_size] = '\0';
	if (len)
		*len = st.st_size;
	return data;
}

/* StorageExists tells whether an object exists. */
bool
StorageExists(const char *location)
{
	struct stat st;

	return stat(StorageLocalPath(location), &st) == 0;
}

/* StorageMove moves an object (rename, durable). */
void
StorageMove(const char *from, const char *to)
{
	const char *to_path = StorageLocalPath(to);

	StorageMakeParents(to_path);
	durable_rename(StorageLocalPath(from), to_path, ERROR);
}

/* StorageDelete removes an object; a missing one is not an error. */
void
StorageDelete(const char *location)
{
	const char *path = StorageLocalPath(location);

	if (unlink(path) != 0 && errno != ENOENT)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not remove file \"%s\": %m", path)));
}

/*
 * StorageWalk calls on_file for every regular file below dir (depth first)
 * and, with remove_dirs, removes each directory once it has been walked.
 * A missing dir is an empty tree.
 */
static void
StorageWalk(const char *dir, void (*on_file) (const char *path, void *arg),
			void *arg, bool remove_dirs)
{
	DIR		   *d = AllocateDir(dir);
	struct dirent *de;

	if (d == NULL)
	{
		if (errno == ENOENT)
			return;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open directory \"%s\": %m", dir)));
	}
	while ((de = ReadDir(d, dir)) != NULL)
	{
		char	   *path;
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		path = psprintf("%s/%s", dir, de->d_name);
		if (lstat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode))
			StorageWalk(path, on_file, arg, remove_dirs);
		else if (S_ISREG(st.st_mode) || remove_dirs)
			on_file(path, arg);
		pfree(path);
	}
	FreeDir(d);
	if (remove_dirs && rmdir(dir) != 0 && errno != ENOENT)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not remove directory \"%s\": %m", dir)));
}

/* StorageCollect appends a file's location to the List * at arg. */
static void
StorageCollect(const char *path, void *arg)
{
	List	  **result = (List **) arg;

	*result = lappend(*result, psprintf(STORAGE_FILE_PREFIX "%s", path));
}

/* StorageUnlink removes a file of a tree being deleted. */
static void
StorageUnlink(const char *path, void *arg)
{
	if (unlink(path) != 0 && errno != ENOENT)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not remove file \"%s\": %m", path)));
}

/* StorageTrimDir returns a file:// prefix as a directory path without trailing slashes. */
static char *
StorageTrimDir(const char *prefix)
{
	char	   *dir = pstrdup(StorageLocalPath(prefix));
	size_t		len = strlen(dir);

	while (len > 1 && dir[len - 1] == '/')
		dir[--len] = '\0';
	return dir;
}

/* StorageList lists the objects under a prefix (a directory), recursively. */
List *
StorageList(const char *prefix)
{
	List	   *result = NIL;

	StorageWalk(StorageTrimDir(prefix), StorageCollect, &result, false);
	return result;
}

/* StorageDeletePrefix removes a directory and everything under it. */
void
StorageDeletePrefix(const char *prefix)
{
	char	   *dir = StorageTrimDir(prefix);

	if (strlen(dir) <= 1)
		elog(ERROR, "refusing to delete \"%s\"", prefix);
	StorageWalk(dir, StorageUnlink, NULL, true);
}

/* StorageListChildren lists the names directly under a directory. */
List *
StorageListChildren(const char *prefix)
{
	char	   *dir = StorageTrimDir(prefix);
	DIR		   *d = AllocateDir(dir);
	struct dirent *de;
	List	   *names = NIL;

	if (d == NULL)
	{
		if (errno == ENOENT)
			return NIL;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open directory \"%s\": %m", dir)));
	}
	while ((de = ReadDir(d, dir)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			names = lappend(names, pstrdup(de->d_name));
	FreeDir(d);
	return names;
}
