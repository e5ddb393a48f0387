-- debug_metadata.sql: test-only entry points into the Iceberg table
-- metadata model (src/iceberg/metadata*.c), loaded by
-- test/interop/metadata.test.mjs with psql; not part of the extension's
-- SQL API.

-- _debug_metadata_roundtrip parses table metadata JSON and serializes it.
CREATE OR REPLACE FUNCTION iceberg_export._debug_metadata_roundtrip(
    metadata text, pretty boolean DEFAULT false)
RETURNS text LANGUAGE C STRICT VOLATILE
AS 'iceberg_export', 'ie_debug_metadata_roundtrip';

-- _debug_schema_roundtrip parses a schema JSON into C structs and back.
CREATE OR REPLACE FUNCTION iceberg_export._debug_schema_roundtrip(schema text)
RETURNS text LANGUAGE C STRICT VOLATILE
AS 'iceberg_export', 'ie_debug_schema_roundtrip';

-- _debug_metadata_demo creates a table, adds one snapshot (and metadata
-- version) per timestamp, expires with the cutoff, evolves the schema and
-- returns {metadata, versions, metadata-files, expired,
-- dropped-metadata-files, schema-ids}.
CREATE OR REPLACE FUNCTION iceberg_export._debug_metadata_demo(
    location text,
    timestamps bigint[] DEFAULT '{1700000000000,1700000100000,1700000200000}',
    cutoff_ms bigint DEFAULT 1700000150000,
    min_keep integer DEFAULT 1,
    previous_versions_max integer DEFAULT 2)
RETURNS text LANGUAGE C STRICT VOLATILE
AS 'iceberg_export', 'ie_debug_metadata_demo';

-- _debug_metadata_add_snapshot adds a snapshot (a random id when
-- snapshot_id is NULL); counts = added files, records, bytes, deleted
-- files, records, bytes.
CREATE OR REPLACE FUNCTION iceberg_export._debug_metadata_add_snapshot(
    metadata text, snapshot_id bigint, timestamp_ms bigint, operation text,
    manifest_list text, counts bigint[] DEFAULT '{0,0,0,0,0,0}',
    run_id text DEFAULT NULL)
RETURNS text LANGUAGE C VOLATILE
AS 'iceberg_export', 'ie_debug_metadata_add_snapshot';

-- _debug_metadata_expire expires snapshots older than cutoff_ms and
-- returns {metadata, expired}.
CREATE OR REPLACE FUNCTION iceberg_export._debug_metadata_expire(
    metadata text, cutoff_ms bigint, min_keep integer DEFAULT 1)
RETURNS text LANGUAGE C STRICT VOLATILE
AS 'iceberg_export', 'ie_debug_metadata_expire';

-- _debug_metadata_set_property sets a property, or removes it when value
-- is NULL.
CREATE OR REPLACE FUNCTION iceberg_export._debug_metadata_set_property(
    metadata text, key text, value text)
RETURNS text LANGUAGE C VOLATILE
AS 'iceberg_export', 'ie_debug_metadata_set_property';

-- _debug_metadata_add_schema adds a schema (field ids as given) and makes
-- it current.
CREATE OR REPLACE FUNCTION iceberg_export._debug_metadata_add_schema(
    metadata text, schema text)
RETURNS text LANGUAGE C STRICT VOLATILE
AS 'iceberg_export', 'ie_debug_metadata_add_schema';

-- _debug_metadata_file_names returns the names the naming helpers make.
CREATE OR REPLACE FUNCTION iceberg_export._debug_metadata_file_names(
    location text, version integer, snapshot_id bigint)
RETURNS text LANGUAGE C STRICT VOLATILE
AS 'iceberg_export', 'ie_debug_metadata_file_names';
