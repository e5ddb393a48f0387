// stats.mjs: expected column-chunk statistics, computed from canonical rows
// in each Parquet type's sort order, and the statistics DuckDB and hyparquet
// read from a footer, in the same canonical form.
//
// Orders (Parquet's TypeDefinedOrder): signed for integers, dates, times and
// timestamps; by value for decimals (negatives first); IEEE without NaN for
// floats, where a zero bound is written as -0 for a minimum and +0 for a
// maximum; unsigned byte-wise for strings, binary and UUIDs; false < true.

import { canonFloat, canonNumericText, hex, parseDecimalText } from './canon.mjs';
import { exactParsers, fileBuffer } from './hyparquet.mjs';
import { parquetMetadata } from 'hyparquet';

/** STAT_KINDS are the top-level column kinds whose statistics are checked. */
const STAT_KINDS = new Set(['int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'bool', 'string', 'json',
  'jsonb', 'other', 'uuid', 'bytea', 'date', 'time', 'timestamp', 'timestamptz']);

export function hasStats(t) {
  return STAT_KINDS.has(t.kind);
}

function compareDecimal(a, b) {
  const x = parseDecimalText(a);
  const y = parseDecimalText(b);
  const s = Math.max(x.scale, y.scale);
  const xu = x.unscaled * 10n ** BigInt(s - x.scale);
  const yu = y.unscaled * 10n ** BigInt(s - y.scale);
  return xu < yu ? -1 : xu > yu ? 1 : 0;
}

/** compareCanonical orders two canonical non-null values of kind t as Parquet does. */
export function compareCanonical(t, a, b) {
  switch (t.kind) {
    case 'int2': case 'int4': case 'int8': case 'date': case 'time': case 'timestamp': case 'timestamptz': {
      const x = BigInt(a);
      const y = BigInt(b);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 'float4': case 'float8':
      return Number(a) - Number(b);
    case 'numeric':
      return compareDecimal(a, b);
    case 'bool':
    case 'uuid': // lower-case hex text orders like the bytes
    case 'bytea':
      return a < b ? -1 : a > b ? 1 : 0;
    default:
      return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
  }
}

/**
 * expectedStats returns {min, max, nulls} (canonical strings, null when a
 * chunk has no bounds) for column index c over rows.
 */
export function expectedStats(rows, c, t) {
  let min = null;
  let max = null;
  let nulls = 0;
  for (const r of rows) {
    const v = r[c];
    if (v === null) {
      nulls++;
      continue;
    }
    if ((t.kind === 'float4' || t.kind === 'float8') && v === 'NaN') continue;
    if (min === null || compareCanonical(t, v, min) < 0) min = v;
    if (max === null || compareCanonical(t, v, max) > 0) max = v;
  }
  if (t.kind === 'float4' || t.kind === 'float8') {
    if (min !== null && Number(min) === 0) min = '-0';
    if (max !== null && Number(max) === 0) max = '0';
  }
  return { min, max, nulls: String(nulls) };
}

/**
 * footerStatsHyp reads every chunk's statistics with hyparquet: returns
 * stats[rowGroup][leafPath] = {min, max, nulls} in canonical form, for the
 * kinds it decodes exactly (not decimals, which it turns into numbers).
 */
export function footerStatsHyp(path) {
  const file = fileBuffer(path);
  const md = parquetMetadata(file, { parsers: exactParsers });
  // Binary bounds: parse again with a parser that keeps raw bytes as hex.
  const mdHex = parquetMetadata(file, { parsers: { ...exactParsers, stringFromBytes: (b) => b && hex(b) } });
  const conv = (v) => {
    if (v === undefined || v === null) return null;
    if (typeof v === 'number') return canonFloat(v);
    return String(v);
  };
  return md.row_groups.map((rg, g) => Object.fromEntries(rg.columns.map((col, i) => {
    const st = col.meta_data.statistics ?? {};
    const stHex = mdHex.row_groups[g].columns[i].meta_data.statistics ?? {};
    return [col.meta_data.path_in_schema.join('.'), {
      min: conv(st.min_value), max: conv(st.max_value), nulls: st.null_count === undefined ? null : String(st.null_count),
      minHex: stHex.min_value ?? null, maxHex: stHex.max_value ?? null,
    }];
  })));
}

/** canonFromHypStat picks the hyparquet bound for kind t (hex for bytea). */
export function hypBound(s, t, which) {
  if (t.kind === 'bytea') return which === 'min' ? s.minHex : s.maxHex;
  return which === 'min' ? s.min : s.max;
}

/** duckBound turns DuckDB's display of a bound into canonical form, or undefined if not comparable. */
export function duckBound(v, t) {
  switch (t.kind) {
    case 'int2': case 'int4': case 'int8': case 'bool': case 'uuid':
    case 'string': case 'json': case 'jsonb': case 'other':
      return v;
    case 'numeric':
      return v === null ? null : canonNumericText(v);
    default:
      return undefined; // floats, dates, times, timestamps, binary: checked through hyparquet
  }
}

/**
 * checkStats compares the footer statistics of a file with the canonical
 * rows; returns a list of problems.  duckMd are parquet_metadata() rows.
 */
export function checkStats(path, columns, rows, duckMd) {
  const hyp = footerStatsHyp(path);
  const problems = [];
  let first = 0;
  hyp.forEach((chunks, g) => {
    const n = Number(duckMd.find((m) => Number(m.row_group_id) === g).row_group_num_rows);
    const slice = rows.slice(first, first + n);
    columns.forEach((col, c) => {
      if (!hasStats(col.type)) return;
      const want = expectedStats(slice, c, col.type);
      const h = chunks[col.name];
      const d = duckMd.find((m) => Number(m.row_group_id) === g && m.path_in_schema === col.name);
      if (!h || !d) {
        problems.push(`row group ${g} ${col.name}: no column chunk`);
        return;
      }
      const got = { min: hypBound(h, col.type, 'min'), max: hypBound(h, col.type, 'max'), nulls: h.nulls };
      const hwant = { ...want };
      if (col.type.kind === 'numeric') {
        // hyparquet turns decimal bounds into lossy numbers; DuckDB checks them below.
        delete got.min; delete got.max; delete hwant.min; delete hwant.max;
      }
      if (JSON.stringify(got) !== JSON.stringify(hwant)) {
        problems.push(`row group ${g} ${col.name} (${col.type.pgType}) hyparquet: ${JSON.stringify(got)}, expected ${JSON.stringify(hwant)}`);
      }
      const dmin = duckBound(d.stats_min_value, col.type);
      const dmax = duckBound(d.stats_max_value, col.type);
      const dgot = { min: dmin, max: dmax, nulls: d.stats_null_count };
      const dwant = { ...want };
      if (dmin === undefined) { delete dgot.min; delete dwant.min; }
      if (dmax === undefined) { delete dgot.max; delete dwant.max; }
      if (JSON.stringify(dgot) !== JSON.stringify(dwant)) {
        problems.push(`row group ${g} ${col.name} (${col.type.pgType}) DuckDB: ${JSON.stringify(dgot)}, expected ${JSON.stringify(dwant)}`);
      }
    });
    first += n;
  });
  return problems;
}
