// fixtures.mjs: the tables the write_parquet interop tests export.

import { psql } from './pg.mjs';

export const SCHEMA = 'ie_interop';

/*
 * all_types holds one column per supported type.  Rows 1 and 2 are the
 * minimum and maximum of every type, the others special floats, dates around
 * the epoch and beyond 2262 (where int64 nanoseconds end), multi-byte text,
 * empty strings and arrays, composites with NULL fields, ±infinity (dates
 * as ±INT32_MAX days, timestamps as ±INT64_MAX micros, DuckDB's sentinels);
 * id 99 is NULL in every other column.
 */
const SETUP = `
DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE;
CREATE SCHEMA ${SCHEMA};
CREATE TYPE ${SCHEMA}.mood AS ENUM ('sad', 'ok', 'happy', 'ünïcödé ☃');
CREATE TYPE ${SCHEMA}.pair AS (a integer, b text, c numeric(5,2), tags text[]);
CREATE DOMAIN ${SCHEMA}.amount AS numeric(12,2) CHECK (VALUE >= 0);
CREATE DOMAIN ${SCHEMA}.email AS text CHECK (VALUE LIKE '%@%');
CREATE TABLE ${SCHEMA}.all_types (
  id          integer,
  c_int2      smallint,
  c_int4      integer,
  c_int8      bigint,
  c_float4    real,
  c_float8    double precision,
  c_num5      numeric(5,2),
  c_num18     numeric(18,4),
  c_num20     numeric(20,2),
  c_num38     numeric(38,10),
  c_num       numeric,
  c_bool      boolean,
  c_text      text,
  c_varchar   varchar(10),
  c_char      char(5),
  c_name      name,
  c_enum      ${SCHEMA}.mood,
  c_json      json,
  c_jsonb     jsonb,
  c_date      date,
  c_ts        timestamp,
  c_tstz      timestamptz,
  c_time      time,
  c_uuid      uuid,
  c_bytea     bytea,
  c_int_arr   integer[],
  c_text_arr  text[],
  c_pair      ${SCHEMA}.pair,
  c_pair_arr  ${SCHEMA}.pair[],
  c_interval  interval,
  c_inet      inet,
  c_money     money
);
INSERT INTO ${SCHEMA}.all_types VALUES
 (1, -32768, -2147483648, -9223372036854775808, -3.4028235e38, -1.7976931348623157e308,
  -999.99, -99999999999999.9999, -999999999999999999.99,
  -9999999999999999999999999999.9999999999, -99999999999999999999999999999.999999999,
  false, '', '', '', '', 'sad', '{"b": 1,  "a": [1, 2]}', '{"b": 1, "a": [1, 2]}',
  '4714-11-24 BC', '4714-11-24 00:00:00 BC', '4714-11-24 00:00:00+00 BC', '00:00:00',
  '00000000-0000-0000-0000-000000000000', '\\x', '{}', '{}', ROW(NULL, NULL, NULL, NULL), '{}',
  '-178000000 years', '0.0.0.0', '-92233720368547758.08'),
 (2, 32767, 2147483647, 9223372036854775807, 3.4028235e38, 1.7976931348623157e308,
  999.99, 99999999999999.9999, 999999999999999999.99,
  9999999999999999999999999999.9999999999, 99999999999999999999999999999.999999999,
  true, 'plain ascii', '0123456789', 'abcde', repeat('n', 63), 'happy', '[]', '{"k": "é☃😀"}',
  '5874897-12-31', '294247-01-10 04:00:54.775806', '294247-01-10 04:00:54.775806+00', '24:00:00',
  'ffffffff-ffff-ffff-ffff-ffffffffffff', '\\xdeadbeef00ff', '{1,NULL,-3}', '{"a",NULL,"","é☃😀"}',
  ROW(1, 'x', 1.5, '{"t1",NULL}'),
  ARRAY[ROW(1, 'a', -1.25, '{}'), NULL, ROW(NULL, NULL, NULL, NULL), ROW(2, '', 0, '{"",NULL,"z"}')]::${SCHEMA}.pair[],
  '178000000 years', '255.255.255.255', '92233720368547758.07'),
 (3, 0, 0, 0, 'NaN', 'Infinity', 0, 0, 0, 0, 0,
  NULL, 'é☃😀中文字符', '☃☃☃☃☃☃☃☃☃☃', 'é☃', '名前', 'ünïcödé ☃', '"str"', 'null',
  '1900-01-01', '1900-01-01 00:00:00', '1900-01-01 12:00:00+05:30', '12:34:56.789012',
  '7fffffff-ffff-ffff-ffff-ffffffffffff', '\\x00', '{NULL}', '{NULL}', ROW(NULL, 'only b', NULL, '{}'), '{NULL}',
  '1 year 2 mons 3 days 04:05:06.789', '2001:db8::1/64', '0'),
 (4, -1, -1, -1, '-Infinity', '-0', -0.01, -0.0001, -0.01, -0.0000000001, -0.000000001,
  true, E'tab\\tnewline\\nquote"backslash\\\\', 'a''b', ' x', 'n', 'ok', '{"nested": {"deep": [true, null]}}', '[1, "two", 3.5]',
  '1969-12-31', '1969-12-31 23:59:59.999999', '1969-12-31 23:59:59.999999+00', '23:59:59.999999',
  '80000000-0000-0000-0000-000000000000', '\\x80ff7f', '{-2147483648,2147483647}', '{"with,comma","with\\"quote"}',
  ROW(-2147483648, 'é☃😀', -999.99, '{"é"}'), ARRAY[ROW(1, NULL, NULL, NULL)]::${SCHEMA}.pair[],
  '-1 days -00:00:01', '10.0.0.0/8', '-0.01'),
 (5, 1, 1, 1, '-0', 'NaN', 0.01, 0.0001, 0.01, 0.0000000001, 0.000000001,
  false, ' ', 'x', 'x', 'x', 'sad', '{}', '{}',
  '1970-01-01', '1970-01-01 00:00:00', '1970-01-01 00:00:00+00', '00:00:00.000001',
  '12345678-9abc-def0-1234-56789abcdef0', '\\x0102', '{0}', '{""}', ROW(0, '', 0, '{""}'), ARRAY[NULL]::${SCHEMA}.pair[],
  '00:00:00', '::1', '1.00'),
 (6, 12345, 123456789, 1234567890123456789, 'Infinity', '-Infinity', 123.45, 12345678901234.5678, 1234567890123456.78,
  1234567890123456789012345678.0123456789, 12345678901234567890123456789.123456789,
  true, 'line1
line2', 'émoji😀', 'abc', 'abc', 'happy', '{"a":1}', '{"a": 1}',
  '2262-04-12', '2262-04-11 23:47:16.854776', '2262-04-11 23:47:16.854776+00', '12:00:00',
  'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '\\x00000000', '{1,2,3,4,5}', '{"x","y"}', ROW(7, 'seven', 7.77, NULL), NULL,
  '3 days', '192.168.1.1', '1234.56'),
 (7, NULL, 42, NULL, 1e-45, 5e-324, NULL, 1.5, NULL, 1.5, 1.5,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  '9999-12-31', '20000-01-01 00:00:00', '20000-06-01 00:00:00+00', NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
 (8, NULL, NULL, NULL, 0.1, 0.1, NULL, NULL, NULL, NULL, 0,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  '2000-02-29', 'infinity', 'infinity', NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
 (9, NULL, NULL, NULL, -3.14159, 2.718281828459045, NULL, NULL, NULL, NULL, -1,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  '0001-01-01', '-infinity', '-infinity', NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
 (10, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  'infinity', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
 (11, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  '-infinity', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
 (99, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);

-- domains_t: domain columns (their base types) and names that need quoting.
CREATE TABLE ${SCHEMA}.domains_t ("Amount €" ${SCHEMA}.amount, "with ""quote""" ${SCHEMA}.email,
                                  "dotted.name" ${SCHEMA}.amount[], "select" integer);
INSERT INTO ${SCHEMA}.domains_t VALUES (12.5, 'a@b.c', ARRAY[1.5, NULL, 0], 1), (NULL, NULL, '{}', 2);

-- stats_t: values whose order differs between byte-wise / signed / value
-- comparison, spread over several row groups.
CREATE TABLE ${SCHEMA}.stats_t AS
SELECT i AS id,
       CASE WHEN i % 10 = 0 THEN NULL ELSE (i * 7919) % 20001 - 10000 END::integer AS c_int,
       ((i::bigint * 2654435761) % 4000000001 - 2000000000) * 1000000 AS c_bigint,
       CASE WHEN i % 17 = 0 THEN 'NaN'::float8 WHEN i % 11 = 0 THEN NULL ELSE (i % 1000 - 500) / 8.0 END AS c_float8,
       CASE WHEN i % 13 = 0 THEN NULL
            ELSE (ARRAY['Zebra', 'apple', 'élan', '☃ snow', 'Äpfel', 'zz', '😀', 'a', 'A', ''])[1 + (i * 31) % 10] || (i % 7) END AS c_text,
       (((i * 37) % 199999 - 99999) / 100.0)::numeric(5,2) AS c_num5,
       CASE WHEN i % 9 = 0 THEN NULL
            ELSE ((i::numeric * 982451653) % 1000000007 - 500000000) * 1000000000000.123456789 END::numeric(38,10) AS c_num38,
       CASE WHEN i % 8 = 0 THEN NULL ELSE md5(i::text)::uuid END AS c_uuid,
       date '2000-01-01' + (i * 61) % 20000 - 10000 AS c_date,
       timestamptz '2000-01-01 00:00:00+00' + ((i * 7877) % 100000 - 50000) * interval '1 hour 0.000001 second' AS c_tstz,
       CASE WHEN i % 5 = 0 THEN NULL ELSE i % 3 = 0 END AS c_bool
  FROM generate_series(1, 6000) AS i;
`;

/** setupFixtures (re)creates the fixture schema. */
export function setupFixtures() {
  psql(SETUP);
}

/** dropFixtures removes the fixture schema. */
export function dropFixtures() {
  psql(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
}

export const ALL_TYPES = `SELECT * FROM ${SCHEMA}.all_types ORDER BY id`;
export const STATS = `SELECT * FROM ${SCHEMA}.stats_t ORDER BY id`;
