-- debug_functions.sql: test-only entry points of iceberg_export, loaded by
-- the interop tests with psql; not part of the extension's SQL API.

-- _debug_export_manifest runs query and writes <dir>/data.parquet, a v2
-- manifest <dir>/manifest.avro with one entry for it (status 1 added,
-- 0 existing or 2 deleted) and the manifest list <dir>/snap.avro.
CREATE OR REPLACE FUNCTION iceberg_export._debug_export_manifest(
    query text,
    dir text,
    snapshot_id bigint DEFAULT 1,
    sequence_number bigint DEFAULT 1,
    parent_snapshot_id bigint DEFAULT NULL,
    status integer DEFAULT 1,
    OUT data_file text,
    OUT manifest text,
    OUT manifest_list text,
    OUT data_bytes bigint,
    OUT manifest_bytes bigint,
    OUT list_bytes bigint,
    OUT record_count bigint)
RETURNS record
LANGUAGE C VOLATILE
AS 'iceberg_export', 'ie_debug_export_manifest';
