/*-------------------------------------------------------------------------
 *
 * catalog_local.c
 *	  The local catalog: iceberg_export.iceberg_tables, laid out like the
 *	  Iceberg JDBC / SQL catalog, with compare-and-swap commits.
 *
 * Spark, Trino and pyiceberg attach to it as a JDBC/SQL catalog; DuckDB
 * and others can use metadata/version-hint.text in the table's folder.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/catalog.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "storage/storage.h"
#include "utils/builtins.h"

/* LocalCatalogLoad returns the table's current metadata location, or NULL. */
char *
LocalCatalogLoad(const CatalogTableId *id)
{
	Oid			types[3] = {TEXTOID, TEXTOID, TEXTOID};
	Datum		values[3];
	char	   *result = NULL;
	int			ret;

	values[0] = CStringGetTextDatum(id->catalog_name);
	values[1] = CStringGetTextDatum(id->namespace);
	values[2] = CStringGetTextDatum(id->table_name);

	SPI_connect();
	ret = SPI_execute_with_args("SELECT metadata_location FROM iceberg_export.iceberg_tables "
								"WHERE catalog_name = $1 AND table_namespace = $2 "
								"AND table_name = $3",
								3, types, values, NULL, true, 1);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "could not read iceberg_tables: %s", SPI_result_code_string(ret));
	if (SPI_processed == 1)
	{
		char	   *v = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);

		if (v != NULL)
		{
			result = SPI_palloc(strlen(v) + 1);
			strcpy(result, v);
		}
	}
	SPI_finish();
	return result;
}

/* LocalCatalogCommit swaps the table's pointer with compare-and-swap. */
bool
LocalCatalogCommit(const CatalogTableId *id, const char *expected,
				   const char *new_location)
{
	Oid			types[5] = {TEXTOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID};
	Datum		values[5];
	char		nulls[5] = {' ', ' ', ' ', ' ', ' '};
	int			ret;
	bool		swapped;

	values[0] = CStringGetTextDatum(id->catalog_name);
	values[1] = CStringGetTextDatum(id->namespace);
	values[2] = CStringGetTextDatum(id->table_name);
	values[3] = CStringGetTextDatum(new_location);
	if (expected != NULL)
		values[4] = CStringGetTextDatum(expected);
	else
	{
		values[4] = (Datum) 0;
		nulls[4] = 'n';
	}

	SPI_connect();
	if (expected == NULL)
	{
		/* a new table: the namespace exists once it holds a table */
		ret = SPI_execute_with_args("INSERT INTO iceberg_export.iceberg_namespace_properties "
									"VALUES ($1, $2, 'exists', 'true') ON CONFLICT DO NOTHING",
									2, types, values, nulls, false, 0);
		if (ret != SPI_OK_INSERT)
			elog(ERROR, "could not write iceberg_namespace_properties: %s",
				 SPI_result_code_string(ret));
		ret = SPI_execute_with_args("INSERT INTO iceberg_export.iceberg_tables "
									"VALUES ($1, $2, $3, $4, NULL, 'TABLE') "
									"ON CONFLICT DO NOTHING",
									4, types, values, nulls, false, 0);
	}
	else
		ret = SPI_execute_with_args("UPDATE iceberg_export.iceberg_tables "
									"SET metadata_location = $4, previous_metadata_location = $5 "
									"WHERE catalog_name = $1 AND table_namespace = $2 "
									"AND table_name = $3 AND metadata_location = $5",
									5, types, values, nulls, false, 0);
	if (ret != SPI_OK_INSERT && ret != SPI_OK_UPDATE)
		elog(ERROR, "could not write iceberg_tables: %s", SPI_result_code_string(ret));
	swapped = SPI_processed == 1;
	SPI_finish();
	return swapped;
}

/*
 * LocalCatalogWriteVersionHint writes metadata/version-hint.text of a
 * table: the current metadata file's name without ".metadata.json", which
 * DuckDB's iceberg_scan resolves with its "%s%s.metadata.json" format.
 */
void
LocalCatalogWriteVersionHint(const char *table_location, const char *metadata_location)
{
	char	   *path = psprintf("%s/metadata/version-hint.text", table_location);
	const char *base = strrchr(metadata_location, '/');
	char	   *stem = pstrdup(base != NULL ? base + 1 : metadata_location);
	char	   *suffix = strstr(stem, ".metadata.json");

	if (suffix != NULL)
		*suffix = '\0';
	StoragePut(path, stem, strlen(stem), false);
}
