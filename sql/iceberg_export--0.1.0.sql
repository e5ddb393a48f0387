/* iceberg_export--0.1.0.sql: install script of iceberg_export 0.1.0 */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION iceberg_export" to load this file. \quit

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
-- END write_parquet
