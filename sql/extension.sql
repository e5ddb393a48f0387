-- extension: the extension installs into its own schema and reports its version
CREATE EXTENSION iceberg_export;

SELECT extname, extversion, extrelocatable, extnamespace::regnamespace AS schema
FROM pg_extension WHERE extname = 'iceberg_export';

SELECT iceberg_export.version();

-- iceberg_export.* GUC names are reserved for the extension
SET iceberg_export.no_such_setting = 'x';

-- each regression file creates the extension and drops it again; the schema
-- that CREATE EXTENSION made is not a member of the extension, so drop it too
DROP EXTENSION iceberg_export;
DROP SCHEMA iceberg_export;
