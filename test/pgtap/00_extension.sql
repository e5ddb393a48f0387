-- 00_extension.sql: the extension installs its schema and functions
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS iceberg_export;

SELECT plan(8);

SELECT has_extension('iceberg_export', 'iceberg_export is installed');
SELECT has_schema('iceberg_export', 'schema iceberg_export exists');
SELECT ok(
  EXISTS (SELECT FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
          WHERE e.extname = 'iceberg_export' AND d.deptype = 'e'
            AND d.classid = 'pg_namespace'::regclass
            AND d.objid = 'iceberg_export'::regnamespace),
  'schema iceberg_export belongs to the extension');
SELECT has_function('iceberg_export', 'version', ARRAY[]::name[],
  'iceberg_export.version() exists');
SELECT function_returns('iceberg_export', 'version', ARRAY[]::name[], 'text',
  'iceberg_export.version() returns text');
SELECT function_lang_is('iceberg_export', 'version', ARRAY[]::name[], 'c',
  'iceberg_export.version() is written in C');
SELECT is(iceberg_export.version(), '0.1.0', 'version() reports 0.1.0');
SELECT has_function('iceberg_export', 'write_parquet',
  ARRAY['text', 'text', 'text', 'bigint'], 'iceberg_export.write_parquet() exists');

SELECT * FROM finish();
ROLLBACK;
