/*-------------------------------------------------------------------------
 *
 * catalog.h
 *	  Iceberg catalogs: the interface of src/catalog/.
 *
 * A catalog maps a table identifier to its current metadata file and swaps
 * that pointer with compare-and-swap.  Only the local catalog (a table in
 * this database laid out like Iceberg's JDBC catalog) exists so far.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ICEBERG_EXPORT_CATALOG_H
#define ICEBERG_EXPORT_CATALOG_H

#include "postgres.h"

typedef struct CatalogTableId
{
	const char *catalog_name;
	const char *namespace;
	const char *table_name;
} CatalogTableId;

/*
 * LocalCatalogLoad returns the table's current metadata location, or NULL
 * when the catalog has no such table.  Runs SPI in the current transaction.
 */
extern char *LocalCatalogLoad(const CatalogTableId *id);

/*
 * LocalCatalogCommit swaps the pointer from expected (NULL: the table is
 * new) to new_location, and returns false when the pointer is no longer
 * expected (a conflict).  The caller commits the transaction.
 */
extern bool LocalCatalogCommit(const CatalogTableId *id, const char *expected,
							   const char *new_location);

/* LocalCatalogWriteVersionHint writes metadata/version-hint.text of a table. */
extern void LocalCatalogWriteVersionHint(const char *table_location,
										 const char *metadata_location);

#endif							/* ICEBERG_EXPORT_CATALOG_H */
