/* iceberg_export--0.1.0.sql: install script of iceberg_export 0.1.0 */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION iceberg_export" to load this file. \quit

-- The extension owns its schema, so DROP EXTENSION removes it too.
CREATE SCHEMA iceberg_export;

/* ---------------------------------------------------------------------
 * general
 * --------------------------------------------------------------------- */

CREATE FUNCTION iceberg_export.version()
RETURNS text
LANGUAGE C STRICT STABLE PARALLEL SAFE
AS 'MODULE_PATHNAME', 'version';

COMMENT ON FUNCTION iceberg_export.version()
IS 'version of the loaded iceberg_export library';

/* ---------------------------------------------------------------------
 * write_parquet (owned by the sync/iceberg engineer; declarations go here)
 * --------------------------------------------------------------------- */

-- BEGIN write_parquet
CREATE FUNCTION iceberg_export.write_parquet(
    query text,
    path text,
    compression text DEFAULT 'zstd',
    row_group_bytes bigint DEFAULT 134217728)
RETURNS TABLE (rows bigint, bytes bigint)
LANGUAGE C VOLATILE PARALLEL UNSAFE
ROWS 1
AS 'MODULE_PATHNAME', 'write_parquet';

COMMENT ON FUNCTION iceberg_export.write_parquet(text, text, text, bigint)
IS 'run a query and write its result to a Parquet file on the server (superuser or pg_write_server_files)';
-- END write_parquet
