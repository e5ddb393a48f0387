-- extension: the extension installs into its own schema and reports its version
CREATE EXTENSION iceberg_export;

SELECT extname, extversion, extrelocatable, extnamespace::regnamespace AS schema
FROM pg_extension WHERE extname = 'iceberg_export';

SELECT iceberg_export.version();

-- iceberg_export.* GUC names are reserved for the extension
SET iceberg_export.no_such_setting = 'x';

-- the schema belongs to the extension: dropping the extension drops it
DROP EXTENSION iceberg_export;
SELECT to_regnamespace('iceberg_export') IS NULL AS schema_dropped;
