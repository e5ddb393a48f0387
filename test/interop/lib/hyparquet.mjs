// hyparquet.mjs: reads Parquet files with hyparquet, keeping values exact.
//
// hyparquet's default conversions lose information, so this module changes
// them (found by experiment with hyparquet 1.31.5):
//   - DECIMAL becomes a JS number (value * 10**-scale), lossy beyond 15
//     digits.  We pass hyparquet a copy of the metadata whose decimal
//     columns have no DECIMAL annotation, so it returns the physical values
//     (number for INT32, bigint for INT64, Uint8Array for FLBA), and scale
//     them exactly with the scale from the original schema.
//   - TIMESTAMP(MICROS) becomes a Date built from micros / 1000n, which
//     truncates towards zero (1969-12-31 23:59:59.999999 reads as 1970) and
//     is Invalid Date for ±INT64_MAX.  Our parser keeps the bigint micros.
//   - DATE becomes a Date at midnight UTC; our parser keeps the days.
//   - TIME stays a bigint of micros (no conversion), INT64 a bigint, INT32 a
//     number, FLOAT/DOUBLE numbers (NaN, ±Infinity, -0 preserved).
//   - UUID becomes lower-case hyphenated text (kept).
//   - BYTE_ARRAY without annotation is decoded as UTF-8 text unless
//     utf8: false, which we pass so that binary stays a Uint8Array.
//   - STRING uses a non-fatal TextDecoder (invalid UTF-8 turns into U+FFFD);
//     ours is fatal, so invalid UTF-8 is reported.
//   - JSON is parsed; ours returns its text.
//   - LIST becomes a JS array, a struct a plain object keyed by field name.

import fs from 'node:fs';
import { parquetMetadata, parquetRead, parquetSchema } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { compressors } from 'hyparquet-compressors';
import { bigEndianSigned, canonDecimal, canonFloat, hex, unexpected } from './canon.mjs';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(bytes) {
  if (!bytes) return bytes;
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return `<<hyparquet: invalid UTF-8: ${hex(bytes).slice(0, 64)}>>`;
  }
}

export const exactParsers = {
  timestampFromMilliseconds: (v) => `<<TIMESTAMP(MILLIS) ${v}>>`,
  timestampFromMicroseconds: (v) => v,
  timestampFromNanoseconds: (v) => `<<TIMESTAMP(NANOS) ${v}>>`,
  dateFromDays: (d) => d,
  stringFromBytes: decodeUtf8,
  jsonFromBytes: decodeUtf8,
};

/** fileBuffer reads a file into an ArrayBuffer (hyparquet's AsyncBuffer). */
export function fileBuffer(path) {
  const b = fs.readFileSync(path);
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
}

/** hypMetadata parses the footer with hyparquet (statistics use exactParsers). */
export function hypMetadata(file) {
  return parquetMetadata(file, { parsers: exactParsers });
}

/** rawMetadata copies metadata with DECIMAL annotations removed. */
function rawMetadata(metadata) {
  const schema = metadata.schema.map((e) => {
    if (e.converted_type === 'DECIMAL' || e.logical_type?.type === 'DECIMAL') {
      return { ...e, converted_type: undefined, logical_type: undefined };
    }
    return e;
  });
  return { ...metadata, schema };
}

/** openHyp reads a file and prepares it for row reads. */
export function openHyp(path) {
  const file = fileBuffer(path);
  const metadata = hypMetadata(file);
  return { file, metadata, raw: rawMetadata(metadata), tree: parquetSchema(metadata) };
}

/** readRowsHyp returns rows [rowStart, rowEnd) as arrays of raw hyparquet values. */
export function readRowsHyp(h, rowStart = 0, rowEnd = undefined) {
  return new Promise((resolve, reject) => {
    parquetRead({
      file: h.file,
      metadata: h.raw,
      compressors,
      utf8: false,
      parsers: exactParsers,
      rowStart,
      rowEnd,
      onComplete: resolve,
    }).catch(reject);
  });
}

function listElementNode(node) {
  // LIST group -> repeated group -> element (three-level); tolerate two-level.
  const rep = node.children?.[0];
  if (!rep) return undefined;
  return rep.children?.length === 1 && rep.element.repetition_type === 'REPEATED' && rep.element.num_children
    ? rep.children[0] : rep;
}

/** canonFromHyp turns a raw hyparquet value of schema node `node` into the canonical form for t. */
export function canonFromHyp(v, t, node) {
  if (v === null || v === undefined) return null;
  const bad = () => unexpected('hyparquet', t, v);
  switch (t.kind) {
    case 'int2':
    case 'int4':
      return typeof v === 'number' && Number.isInteger(v) ? String(v) : bad();
    case 'int8':
      return typeof v === 'bigint' ? String(v) : bad();
    case 'float4':
    case 'float8':
      return typeof v === 'number' ? canonFloat(v) : bad();
    case 'numeric': {
      const scale = node?.element?.scale ?? node?.element?.logical_type?.scale;
      if (scale === undefined) return `<<hyparquet: decimal column without scale: ${node?.element?.name}>>`;
      if (typeof v === 'number' && Number.isInteger(v)) return canonDecimal(BigInt(v), scale);
      if (typeof v === 'bigint') return canonDecimal(v, scale);
      if (v instanceof Uint8Array) return canonDecimal(bigEndianSigned(v), scale);
      return bad();
    }
    case 'bool':
      return typeof v === 'boolean' ? String(v) : bad();
    case 'date':
      return typeof v === 'number' && Number.isInteger(v) ? String(v) : bad();
    case 'time':
    case 'timestamp':
    case 'timestamptz':
      return typeof v === 'bigint' ? String(v) : bad();
    case 'uuid':
      return typeof v === 'string' ? v : bad();
    case 'bytea':
      return v instanceof Uint8Array ? hex(v) : bad();
    case 'array': {
      if (!Array.isArray(v)) return bad();
      const el = listElementNode(node);
      return v.map((e) => canonFromHyp(e, t.element, el));
    }
    case 'composite': {
      if (typeof v !== 'object' || Array.isArray(v) || v instanceof Uint8Array) return bad();
      const names = Object.keys(v);
      const want = t.fields.map((f) => f.name);
      if (names.join('\u0000') !== want.join('\u0000')) {
        return `<<hyparquet: struct fields ${JSON.stringify(names)}, expected ${JSON.stringify(want)}>>`;
      }
      const o = {};
      t.fields.forEach((f, i) => {
        const child = node?.children?.find((c) => c.element.name === f.name) ?? node?.children?.[i];
        o[f.name] = canonFromHyp(v[f.name], f.type, child);
      });
      return o;
    }
    default: // string, json, jsonb, other
      return typeof v === 'string' ? v : bad();
  }
}

/** canonRowsHyp converts raw rows (arrays in schema order) into canonical rows. */
export function canonRowsHyp(h, rows, columns) {
  const nodes = h.tree.children;
  return rows.map((r) => r.map((v, i) => canonFromHyp(v, columns[i].type, nodes[i])));
}

/** readCanonicalHyp reads a whole file with hyparquet into canonical rows. */
export async function readCanonicalHyp(path, columns) {
  const h = openHyp(path);
  const names = h.tree.children.map((c) => c.element.name);
  if (names.length !== columns.length) {
    return { names, rows: [], error: `hyparquet sees ${names.length} columns ${JSON.stringify(names)}, expected ${columns.length}` };
  }
  const raw = await readRowsHyp(h);
  return { names, rows: canonRowsHyp(h, raw, columns), metadata: h.metadata };
}

/**
 * forEachRowGroupHyp reads a file one row group at a time and calls
 * fn(canonicalRows, firstRowIndex, rowGroupIndex), awaiting it, so memory
 * holds one row group.  Pass groups to read only some of them.
 */
export async function forEachRowGroupHyp(path, columns, fn, groups = null) {
  const h = openHyp(path);
  let start = 0;
  const bounds = h.metadata.row_groups.map((rg) => {
    const b = [start, start + Number(rg.num_rows)];
    start = b[1];
    return b;
  });
  for (let g = 0; g < bounds.length; g++) {
    if (groups && !groups.includes(g)) continue;
    const raw = await readRowsHyp(h, bounds[g][0], bounds[g][1]);
    await fn(canonRowsHyp(h, raw, columns), bounds[g][0], g);
  }
  return h.metadata;
}

/**
 * pageEncodings walks the pages of every column chunk with hyparquet's page
 * header reader and returns pages[rowGroup][dottedPath] =
 * [{type, encoding, num_values}] (DICTIONARY_PAGE, DATA_PAGE, DATA_PAGE_V2).
 */
export function pageEncodings(path) {
  const file = fileBuffer(path);
  const md = hypMetadata(file);
  const view = new DataView(file);
  return md.row_groups.map((rg) => Object.fromEntries(rg.columns.map((col) => {
    const m = col.meta_data;
    const start = Number(m.dictionary_page_offset ?? m.data_page_offset);
    const end = start + Number(m.total_compressed_size);
    const reader = { view, offset: start };
    const pages = [];
    while (reader.offset < end) {
      const h = parquetHeader(reader);
      const ph = h.data_page_header ?? h.data_page_header_v2 ?? h.dictionary_page_header;
      pages.push({ type: h.type, encoding: ph?.encoding, num_values: ph?.num_values });
      reader.offset += h.compressed_page_size;
    }
    return [m.path_in_schema.join('.'), pages];
  })));
}
