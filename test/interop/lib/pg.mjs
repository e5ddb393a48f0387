// pg.mjs: runs SQL through the psql CLI and describes a query's result columns.
//
// Every call is one psql process (-X -A -t -q -v ON_ERROR_STOP=1) that takes
// its connection from the PG* environment variables.  Sessions get fixed
// settings through PGOPTIONS (UTC, ISO dates, shortest exact floats) so that
// text produced by output functions is the same in every session, including
// the one write_parquet runs in.

import { spawn, spawnSync } from 'node:child_process';
import readline from 'node:readline';

const SESSION_OPTIONS =
  '-c TimeZone=UTC -c DateStyle=ISO,YMD -c IntervalStyle=postgres -c extra_float_digits=1 ' +
  '-c client_min_messages=warning';

function psqlEnv() {
  const env = { ...process.env };
  env.PGOPTIONS = `${env.PGOPTIONS ? env.PGOPTIONS + ' ' : ''}${SESSION_OPTIONS}`;
  return env;
}

const PSQL_ARGS = ['-X', '-A', '-t', '-q', '-v', 'ON_ERROR_STOP=1', '-f', '-'];

export class PsqlError extends Error {
  constructor(sql, status, stderr) {
    super(`psql failed (exit ${status}): ${stderr.trim()}\n--- SQL ---\n${truncate(sql, 2000)}`);
    this.status = status;
    this.stderr = stderr;
  }
}

function truncate(s, n) {
  return s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s;
}

/** runPsql runs sql and returns {status, stdout, stderr} without throwing. */
export function runPsql(sql) {
  const r = spawnSync('psql', PSQL_ARGS, {
    input: sql,
    env: psqlEnv(),
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** psql runs sql and returns its output (unaligned, tuples only), throwing on error. */
export function psql(sql) {
  const r = runPsql(sql);
  if (r.status !== 0) throw new PsqlError(sql, r.status, r.stderr);
  return r.stdout.replace(/\n$/, '');
}

/** psqlLines returns the output rows of sql as an array of lines. */
export function psqlLines(sql) {
  const out = psql(sql);
  return out === '' ? [] : out.split('\n');
}

/** psqlJson runs a query returning one json value and parses it. */
export function psqlJson(sql) {
  const out = psql(sql);
  return out === '' ? null : JSON.parse(out);
}

/**
 * psqlStream runs sql and calls onLine for every output line as it arrives,
 * so results larger than memory can be consumed.  Resolves when psql exits.
 */
export function psqlStream(sql, onLine) {
  return new Promise((resolve, reject) => {
    const child = spawn('psql', PSQL_ARGS, { env: psqlEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d) => { stderr += d; });
    const rl = readline.createInterface({ input: child.stdout, crlfDelay: Infinity });
    rl.on('line', onLine);
    child.on('error', reject);
    child.on('close', (status) => {
      if (status !== 0) reject(new PsqlError(sql, status, stderr));
      else resolve();
    });
    child.stdin.end(sql);
  });
}

/** psqlFails runs sql, asserts that it fails, and returns psql's stderr. */
export function psqlFails(sql) {
  const r = runPsql(sql);
  if (r.status === 0) {
    throw new Error(`expected SQL to fail, but it succeeded with output:\n${truncate(r.stdout, 2000)}\n--- SQL ---\n${truncate(sql, 2000)}`);
  }
  return r.stderr;
}

/** lit quotes a string as an SQL literal (standard_conforming_strings is on). */
export function lit(s) {
  if (s === null || s === undefined) return 'NULL';
  return `'${String(s).replace(/'/g, "''")}'`;
}

/** ident quotes an SQL identifier. */
export function ident(s) {
  return `"${String(s).replace(/"/g, '""')}"`;
}

// Describing result types. ---------------------------------------------

/*
 * A type descriptor is a plain object:
 *   { kind, pgType, ... }
 * kind is one of int2 int4 int8 float4 float8 numeric bool string json jsonb
 * bytea uuid date time timestamp timestamptz array composite other.
 *   numeric:   precision, scale (null, null when unconstrained)
 *   string:    subkind text | varchar | bpchar | name | enum
 *   array:     element (descriptor)
 *   composite: fields [{name, type}]
 *   other:     text through the type's output function (interval, inet, money…)
 */

const SCALAR_KINDS = {
  int2: 'int2', int4: 'int4', int8: 'int8',
  float4: 'float4', float8: 'float8', numeric: 'numeric', bool: 'bool',
  text: 'string', varchar: 'string', bpchar: 'string', name: 'string',
  json: 'json', jsonb: 'jsonb', bytea: 'bytea', uuid: 'uuid',
  date: 'date', time: 'time', timestamp: 'timestamp', timestamptz: 'timestamptz',
};

function typeInfo(oids) {
  if (oids.length === 0) return new Map();
  const rows = psqlJson(`
    SELECT json_agg(json_build_object(
      'oid', t.oid, 'typname', t.typname, 'typtype', t.typtype, 'typcategory', t.typcategory,
      'typelem', t.typelem, 'typbasetype', t.typbasetype, 'typtypmod', t.typtypmod,
      'fields', (SELECT json_agg(json_build_object('name', a.attname, 'typid', a.atttypid,
                                                   'typmod', a.atttypmod) ORDER BY a.attnum)
                   FROM pg_attribute a
                  WHERE a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped)))
      FROM pg_type t WHERE t.oid IN (${oids.join(',')})`);
  return new Map(rows.map((r) => [r.oid, r]));
}

function formatTypes(pairs) {
  if (pairs.length === 0) return [];
  const values = pairs.map(([o, m]) => `(${o}::oid, ${m}::int)`).join(',');
  return psqlLines(`SELECT format_type(o, m) FROM (VALUES ${values}) v(o, m)`);
}

/** describeTypes resolves (oid, typmod) pairs into type descriptors. */
function describeTypes(pairs) {
  const cache = new Map();
  const fetchAll = (oids) => {
    const missing = [...new Set(oids)].filter((o) => !cache.has(o));
    for (const [oid, info] of typeInfo(missing)) cache.set(oid, info);
  };
  // Breadth-first: collect every oid reachable from the pairs.
  let frontier = pairs.map(([o]) => o);
  while (frontier.length) {
    fetchAll(frontier);
    const next = [];
    for (const o of frontier) {
      const t = cache.get(o);
      if (t.typtype === 'd') next.push(t.typbasetype);
      if (t.typcategory === 'A' && t.typelem) next.push(t.typelem);
      for (const f of t.fields ?? []) next.push(f.typid);
    }
    frontier = next.filter((o) => !cache.has(o));
  }
  const build = (oid, typmod) => {
    let t = cache.get(oid);
    while (t.typtype === 'd') {
      typmod = t.typtypmod;
      t = cache.get(t.typbasetype);
    }
    const d = { oid: t.oid, typmod, typname: t.typname };
    if (t.typcategory === 'A' && t.typelem) {
      d.kind = 'array';
      d.element = build(t.typelem, typmod);
    } else if (t.typtype === 'c') {
      d.kind = 'composite';
      d.fields = t.fields.map((f) => ({ name: f.name, type: build(f.typid, f.typmod) }));
    } else if (t.typtype === 'e') {
      d.kind = 'string';
      d.subkind = 'enum';
    } else if (SCALAR_KINDS[t.typname] && t.typtype === 'b') {
      d.kind = SCALAR_KINDS[t.typname];
      if (d.kind === 'string') d.subkind = t.typname;
      if (d.kind === 'numeric') {
        d.precision = typmod >= 4 ? ((typmod - 4) >> 16) & 0xffff : null;
        d.scale = typmod >= 4 ? (((typmod - 4) & 0x7ff) ^ 1024) - 1024 : null;
      }
    } else {
      d.kind = 'other';
    }
    return d;
  };
  const result = pairs.map(([o, m]) => build(o, m));
  // Attach format_type() names for messages.
  const all = [];
  const walk = (d) => {
    all.push(d);
    if (d.element) walk(d.element);
    for (const f of d.fields ?? []) walk(f.type);
  };
  result.forEach(walk);
  const names = formatTypes(all.map((d) => [d.oid, d.typmod]));
  all.forEach((d, i) => { d.pgType = names[i]; });
  return result;
}

/**
 * describeQuery returns [{name, type}] for the result columns of query,
 * by creating a temporary view over it (the query is not executed).
 */
export function describeQuery(query) {
  const cols = psqlJson(`
    CREATE TEMP VIEW ie_describe_v AS ${query};
    SELECT json_agg(json_build_array(attname, atttypid, atttypmod) ORDER BY attnum)
      FROM pg_attribute WHERE attrelid = 'ie_describe_v'::regclass AND attnum > 0;`);
  const types = describeTypes(cols.map(([, o, m]) => [o, m]));
  return cols.map(([name], i) => ({ name, type: types[i] }));
}

// Canonical rows. --------------------------------------------------------

/*
 * canonExpr builds an SQL expression that turns expr (of type t) into json
 * whose scalars are all strings in canonical form:
 *   integers and numerics: their text; floats: float8 text (exact);
 *   date: days since 1970-01-01, ±infinity as ±INT32_MAX; time: micros since midnight;
 *   timestamp(tz): micros since 1970-01-01 00:00 (UTC), ±infinity as ±INT64_MAX;
 *   bytea: lower-case hex; everything else: the output function's text.
 * Arrays become json arrays, composites json objects in field order.
 */
let aliasCounter = 0;
export function canonExpr(expr, t) {
  switch (t.kind) {
    case 'float4':
      return `to_json((${expr})::float8::text)`;
    case 'date':
      return `CASE WHEN (${expr}) = 'infinity' THEN to_json('2147483647'::text)
                   WHEN (${expr}) = '-infinity' THEN to_json('-2147483647'::text)
                   ELSE to_json(((${expr}) - date '1970-01-01')::text) END`;
    case 'time':
      return `to_json(((extract(epoch FROM ${expr}) * 1000000)::numeric(30,0))::text)`;
    case 'timestamp':
    case 'timestamptz':
      return `CASE WHEN (${expr}) = 'infinity' THEN to_json('9223372036854775807'::text)
                   WHEN (${expr}) = '-infinity' THEN to_json('-9223372036854775807'::text)
                   ELSE to_json(((extract(epoch FROM ${expr}) * 1000000)::numeric(30,0))::text) END`;
    case 'bytea':
      return `to_json(encode(${expr}, 'hex'))`;
    case 'string':
      // bpchar's cast to text strips the padding; its output function keeps it.
      if (t.subkind === 'bpchar') return `CASE WHEN (${expr}) IS NULL THEN NULL ELSE to_json(format('%s', ${expr})) END`;
      return `to_json((${expr})::text)`;
    case 'array': {
      const i = `ie_i${++aliasCounter}`;
      const elem = canonExpr(`(${expr})[${i}]`, t.element);
      return `CASE WHEN (${expr}) IS NULL THEN NULL ELSE COALESCE(
                (SELECT json_agg(${elem} ORDER BY ${i}) FROM generate_subscripts(${expr}, 1) AS ${i}),
                '[]'::json) END`;
    }
    case 'composite': {
      const parts = t.fields.map((f) => `${lit(f.name)}, ${canonExpr(`(${expr}).${ident(f.name)}`, f.type)}`);
      // A composite IS NULL when all its fields are; its text is NULL only when it is.
      return `CASE WHEN (${expr})::text IS NULL THEN NULL ELSE json_build_object(${parts.join(', ')}) END`;
    }
    case 'other':
      // The output function: a cast to text can differ (inet::text adds the mask).
      return `CASE WHEN (${expr}) IS NULL THEN NULL ELSE to_json(format('%s', ${expr})) END`;
    default:
      return `to_json((${expr})::text)`;
  }
}

/** canonicalQuery wraps query so that each output line is one row as a json array. */
export function canonicalQuery(query, columns) {
  const exprs = columns.map((c) => canonExpr(`ie_q.${ident(c.name)}`, c.type));
  return `SELECT json_build_array(${exprs.join(', ')})::text FROM (${query}) ie_q`;
}

/**
 * fetchCanonicalRows runs query and returns {columns, rows}: rows are arrays
 * of canonical values (strings, null, arrays, objects) in result order.
 */
export function fetchCanonicalRows(query, columns = describeQuery(query)) {
  const lines = psqlLines(canonicalQuery(query, columns));
  return { columns, rows: lines.map((l) => JSON.parse(l)) };
}
