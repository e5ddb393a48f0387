-- 00_extension.sql: the extension installs its schema and functions
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS iceberg_export;

SELECT plan(7);

SELECT has_extension('iceberg_export', 'iceberg_export is installed');
SELECT has_schema('iceberg_export', 'schema iceberg_export exists');
SELECT is(
  (SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'iceberg_export'),
  'iceberg_export',
  'the extension lives in schema iceberg_export');
SELECT has_function('iceberg_export', 'version', ARRAY[]::name[],
  'iceberg_export.version() exists');
SELECT function_returns('iceberg_export', 'version', ARRAY[]::name[], 'text',
  'iceberg_export.version() returns text');
SELECT function_lang_is('iceberg_export', 'version', ARRAY[]::name[], 'c',
  'iceberg_export.version() is written in C');
SELECT is(iceberg_export.version(), '0.1.0', 'version() reports 0.1.0');

SELECT * FROM finish();
ROLLBACK;
