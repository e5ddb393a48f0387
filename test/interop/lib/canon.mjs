// canon.mjs: one canonical form for values from Postgres, DuckDB and hyparquet.
//
// Canonical values are strings (or null, arrays, plain objects), chosen so
// that equal values are equal strings whichever reader produced them:
//   integers        decimal text                      "-32768"
//   floats          JS Number text, "-0" kept          "0.10000000149011612" "NaN" "-Infinity"
//   numerics        exact decimal, no trailing zeros   "-12.5" "0"
//   date            days since 1970-01-01              "-25567"
//   time            micros since midnight              "45296789000"
//   timestamp(tz)   micros since the epoch (UTC)       "-1"
//   bytea           lower-case hex                     "00ff"
//   strings, uuid, booleans, json and others: their text.
// A reader value of an unexpected JS type becomes a string starting with
// "<<" so that the comparison reports it instead of throwing.

/** canonFloat formats a JS number, keeping the sign of zero. */
export function canonFloat(v) {
  return Object.is(v, -0) ? '-0' : String(v);
}

/** canonDecimal formats unscaled * 10^-scale exactly, without trailing zeros. */
export function canonDecimal(unscaled, scale) {
  let u = BigInt(unscaled);
  let s = Number(scale);
  while (s > 0 && u % 10n === 0n) {
    u /= 10n;
    s -= 1;
  }
  const neg = u < 0n;
  let digits = (neg ? -u : u).toString();
  if (s > 0) {
    digits = digits.padStart(s + 1, '0');
    digits = `${digits.slice(0, digits.length - s)}.${digits.slice(digits.length - s)}`;
  } else if (s < 0) {
    digits = u === 0n ? '0' : digits + '0'.repeat(-s);
  }
  return neg && u !== 0n ? `-${digits}` : digits;
}

/** parseDecimalText turns "-12.50" into {unscaled: -1250n, scale: 2}. */
export function parseDecimalText(text) {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text);
  if (!m) return null;
  const frac = m[3] ?? '';
  const unscaled = BigInt(`${m[1] === '-' ? '-' : ''}${(m[2] || '0')}${frac}`);
  return { unscaled, scale: frac.length };
}

/** canonNumericText normalises a numeric's text (as Postgres prints it). */
export function canonNumericText(text) {
  const d = parseDecimalText(text);
  return d ? canonDecimal(d.unscaled, d.scale) : text; // NaN, Infinity stay as they are
}

export function hex(bytes) {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** bigEndianSigned reads a two's complement big-endian integer (Parquet FLBA decimal). */
export function bigEndianSigned(bytes) {
  if (bytes.length === 0) return 0n;
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  const bits = BigInt(bytes.length * 8);
  if (bytes[0] & 0x80) v -= 1n << bits;
  return v;
}

export function describeValue(v) {
  if (v === null) return 'null';
  if (v === undefined) return 'undefined';
  const t = typeof v;
  if (t !== 'object') return `${t} ${t === 'bigint' ? `${v}n` : JSON.stringify(v)}`;
  const name = v.constructor?.name ?? 'Object';
  let text;
  try { text = String(v); } catch { text = '?'; }
  return `${name} ${text.length > 80 ? `${text.slice(0, 80)}…` : text}`;
}

export function unexpected(reader, t, v) {
  return `<<${reader}: unexpected value for ${t.pgType ?? t.kind}: ${describeValue(v)}>>`;
}

/** canonFromPg normalises a value from pg.mjs's canonical query further. */
export function canonFromPg(v, t) {
  if (v === null) return null;
  switch (t.kind) {
    case 'float4':
    case 'float8':
      return canonFloat(Number(v));
    case 'numeric':
      return canonNumericText(v);
    case 'array':
      return v.map((e) => canonFromPg(e, t.element));
    case 'composite': {
      const o = {};
      for (const f of t.fields) o[f.name] = canonFromPg(v[f.name], f.type);
      return o;
    }
    default:
      return v;
  }
}

/** canonRowsFromPg applies canonFromPg to every row. */
export function canonRowsFromPg(rows, columns) {
  return rows.map((r) => r.map((v, i) => canonFromPg(v, columns[i].type)));
}
