-- write_parquet: the SQL surface of iceberg_export.write_parquet and its errors.
-- Files go to a directory inside the server's data directory (unique per
-- cluster, writable by the server); outputs never show paths or sizes.
CREATE EXTENSION iceberg_export;

SELECT current_setting('data_directory') || '/iceberg_export_regress' AS dir \gset
SELECT 'mkdir -p ' || :'dir' AS mkdir, 'rm -rf ' || :'dir' AS rmdir \gset
COPY (SELECT 1) TO PROGRAM :'rmdir';
COPY (SELECT 1) TO PROGRAM :'mkdir';

-- valid_parquet tells whether a file starts and ends with the Parquet magic
CREATE FUNCTION pg_temp.valid_parquet(path text) RETURNS boolean
LANGUAGE sql AS $$
  SELECT pg_read_binary_file(path, 0, 4) = '\x50415231'::bytea
     AND pg_read_binary_file(path, (pg_stat_file(path)).size - 4, 4) = '\x50415231'::bytea
$$;

CREATE TYPE pg_temp.regress_mood AS ENUM ('sad', 'happy');
CREATE TYPE regress_ie_addr AS (street text, zip int);

-- success: rows and bytes, bytes equal to the file's size
SELECT rows, bytes > 0 AS has_bytes,
       bytes = (pg_stat_file(:'dir' || '/ok.parquet')).size AS bytes_is_size,
       pg_temp.valid_parquet(:'dir' || '/ok.parquet') AS valid
FROM iceberg_export.write_parquet($$
  SELECT i AS id, i::bigint * 1000000000 AS big, i * 1.5::float8 AS f,
         (i * 1.25)::numeric(10,2) AS amount, i::numeric AS plain_numeric,
         'name ' || i AS name, DATE '2024-01-01' + i AS day,
         TIMESTAMPTZ '2024-01-01 00:00:00+00' + i * INTERVAL '1 hour' AS at,
         ARRAY[i, NULL, i + 1] AS ints, ROW('Main St', i)::regress_ie_addr AS addr,
         (ARRAY['sad', 'happy'])[1 + i % 2]::pg_temp.regress_mood AS mood,
         INTERVAL '1 day' * i AS other, NULL::text AS nothing
  FROM generate_series(1, 3) i
$$, :'dir' || '/ok.parquet');

-- every codec, case-insensitive, and a small row group target
SELECT c, rows, bytes > 0 AS has_bytes, pg_temp.valid_parquet(:'dir' || '/codec.parquet') AS valid
FROM unnest(ARRAY['zstd', 'SNAPPY', 'gzip', 'none', 'uncompressed']) c,
     iceberg_export.write_parquet('SELECT g AS n, md5(g::text) AS s FROM generate_series(1, 20000) g',
                                  :'dir' || '/codec.parquet', c, 65536);

-- no rows: still a valid file
SELECT rows, pg_temp.valid_parquet(:'dir' || '/empty.parquet') AS valid
FROM iceberg_export.write_parquet('SELECT 1 AS a WHERE false', :'dir' || '/empty.parquet');

-- arguments
SELECT * FROM iceberg_export.write_parquet('SELECT 1 AS a', :'dir' || '/x.parquet', 'lz4');
SELECT * FROM iceberg_export.write_parquet('SELECT 1 AS a', :'dir' || '/x.parquet', 'zstd', 65535);
SELECT * FROM iceberg_export.write_parquet('SELECT 1 AS a', :'dir' || '/x.parquet', NULL);
SELECT * FROM iceberg_export.write_parquet(NULL, :'dir' || '/x.parquet');
SELECT * FROM iceberg_export.write_parquet('SELECT 1 AS a', 'relative/x.parquet');
SELECT * FROM iceberg_export.write_parquet('SELECT 1 AS a', '/');
-- (terse: the detail names the temporary file, which holds the backend's pid)
\set VERBOSITY terse
SELECT * FROM iceberg_export.write_parquet('SELECT 1 AS a', '/nonexistent_iceberg_export_dir/x.parquet');
\set VERBOSITY default

-- queries that are not one read-only SELECT
SELECT * FROM iceberg_export.write_parquet('SELECT 1 AS a; SELECT 2 AS b', :'dir' || '/x.parquet');
SELECT * FROM iceberg_export.write_parquet('', :'dir' || '/x.parquet');
SELECT * FROM iceberg_export.write_parquet('CREATE TABLE regress_ie_t (a int)', :'dir' || '/x.parquet');
SELECT * FROM iceberg_export.write_parquet('SHOW work_mem', :'dir' || '/x.parquet');
CREATE TABLE regress_ie_t (a int);
SELECT * FROM iceberg_export.write_parquet('INSERT INTO regress_ie_t VALUES (1) RETURNING a', :'dir' || '/x.parquet');
SELECT * FROM iceberg_export.write_parquet('WITH d AS (DELETE FROM regress_ie_t RETURNING a) SELECT a FROM d', :'dir' || '/x.parquet');
SELECT * FROM iceberg_export.write_parquet('SELECT a FROM regress_ie_t FOR UPDATE', :'dir' || '/x.parquet');
SELECT * FROM iceberg_export.write_parquet('SELEC 1', :'dir' || '/x.parquet');
SELECT * FROM iceberg_export.write_parquet('SELECT FROM regress_ie_t', :'dir' || '/x.parquet');
DROP TABLE regress_ie_t;

-- column names must be unique
SELECT * FROM iceberg_export.write_parquet('SELECT 1 AS a, 2 AS a', :'dir' || '/x.parquet');
SELECT * FROM iceberg_export.write_parquet('SELECT 1, 2', :'dir' || '/x.parquet');

-- types that cannot be exported
SELECT * FROM iceberg_export.write_parquet('SELECT ROW(1, 2) AS r', :'dir' || '/x.parquet');
SELECT * FROM iceberg_export.write_parquet('SELECT pg_sleep(0) AS v', :'dir' || '/x.parquet');
SELECT * FROM iceberg_export.write_parquet($$SELECT '{{1,2},{3,4}}'::int[] AS m$$, :'dir' || '/x.parquet');

-- numerics are never rounded
SELECT * FROM iceberg_export.write_parquet('SELECT 1e30::numeric AS n', :'dir' || '/x.parquet');
SELECT * FROM iceberg_export.write_parquet('SELECT 0.0000000001::numeric AS n', :'dir' || '/x.parquet');
SELECT * FROM iceberg_export.write_parquet($$SELECT 'NaN'::numeric AS n$$, :'dir' || '/x.parquet');
SELECT * FROM iceberg_export.write_parquet($$SELECT ARRAY[1, 'Infinity']::numeric[] AS n$$, :'dir' || '/x.parquet');
SELECT rows FROM iceberg_export.write_parquet(
  $$SELECT 99999999999999999999999999999999999999::numeric(38,0) AS a,
           -0.000000001::numeric AS b, 1.500::numeric AS c,
           12345678901234567890123456789.123456789::numeric AS d,
           1e60::numeric(70,0) AS as_text, 12345::numeric(5,-2) AS also_text$$,
  :'dir' || '/numeric.parquet');

-- timestamps beyond int64 microseconds since 1970
SELECT * FROM iceberg_export.write_parquet($$SELECT '294247-01-10 04:00:54.775807'::timestamp AS ts$$, :'dir' || '/x.parquet');
SELECT rows FROM iceberg_export.write_parquet(
  $$SELECT 'infinity'::timestamp AS a, '-infinity'::timestamptz AS b, 'infinity'::date AS c,
           '1900-01-01 12:00'::timestamp AS d, '20000-01-01'::date AS e$$,
  :'dir' || '/time.parquet');

-- a failing query leaves no file behind, and keeps an existing file intact
SELECT * FROM iceberg_export.write_parquet(
  'SELECT CASE WHEN g = 5000 THEN 1 / 0 ELSE g END AS x FROM generate_series(1, 10000) g',
  :'dir' || '/failed.parquet');
SELECT pg_stat_file(:'dir' || '/failed.parquet', true) IS NULL AS no_file;
SELECT (pg_stat_file(:'dir' || '/ok.parquet')).size AS ok_size \gset
SELECT * FROM iceberg_export.write_parquet(
  'SELECT CASE WHEN g = 5000 THEN 1 / 0 ELSE g END AS x FROM generate_series(1, 10000) g',
  :'dir' || '/ok.parquet');
SELECT (pg_stat_file(:'dir' || '/ok.parquet')).size = :ok_size AS unchanged,
       pg_temp.valid_parquet(:'dir' || '/ok.parquet') AS valid;

-- privileges: superuser or pg_write_server_files
CREATE ROLE regress_ie_nopriv;
CREATE ROLE regress_ie_writer IN ROLE pg_write_server_files;
GRANT USAGE ON SCHEMA iceberg_export TO regress_ie_nopriv, regress_ie_writer;
SET ROLE regress_ie_nopriv;
SELECT * FROM iceberg_export.write_parquet('SELECT 1 AS a', :'dir' || '/nopriv.parquet');
RESET ROLE;
SET ROLE regress_ie_writer;
SELECT rows FROM iceberg_export.write_parquet('SELECT current_user::text AS u', :'dir' || '/writer.parquet');
RESET ROLE;
SELECT pg_stat_file(:'dir' || '/nopriv.parquet', true) IS NULL AS no_file;

-- only finished files, no temporary ones
SELECT f FROM pg_ls_dir(:'dir') f ORDER BY f;

-- clean up
REVOKE USAGE ON SCHEMA iceberg_export FROM regress_ie_nopriv, regress_ie_writer;
DROP ROLE regress_ie_nopriv;
DROP ROLE regress_ie_writer;
DROP TYPE regress_ie_addr;
COPY (SELECT 1) TO PROGRAM :'rmdir';
DROP EXTENSION iceberg_export;
