// compare.mjs: value-by-value comparison of canonical rows with readable diffs.

import assert from 'node:assert/strict';

function show(v, other) {
  if (v === null) return 'NULL';
  if (typeof v === 'string') {
    if (v.length <= 120) return JSON.stringify(v);
    // Long strings: show length and the neighbourhood of the first difference.
    let at = 0;
    if (typeof other === 'string') {
      while (at < v.length && at < other.length && v[at] === other[at]) at++;
    }
    const from = Math.max(0, at - 20);
    return `string of ${v.length} chars, first difference at ${at}: …${JSON.stringify(v.slice(from, from + 60))}…`;
  }
  const s = JSON.stringify(v);
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}

/** diffValues pushes {path, expected, actual} for every difference (up to limit). */
function diffValues(exp, act, path, out, limit) {
  if (out.length >= limit) return;
  if (exp === act) return;
  if (Array.isArray(exp) && Array.isArray(act)) {
    if (exp.length !== act.length) {
      out.push({ path: `${path} (length ${act.length}, expected ${exp.length})`, expected: exp, actual: act });
      return;
    }
    exp.forEach((e, i) => diffValues(e, act[i], `${path}[${i}]`, out, limit));
    return;
  }
  if (exp && act && typeof exp === 'object' && typeof act === 'object' && !Array.isArray(exp) && !Array.isArray(act)) {
    const keys = new Set([...Object.keys(exp), ...Object.keys(act)]);
    for (const k of keys) diffValues(exp[k], act[k], `${path}.${k}`, out, limit);
    return;
  }
  out.push({ path, expected: exp, actual: act });
}

/**
 * assertRowsEqual compares canonical rows value by value.
 *   actual, expected: arrays of rows (arrays of canonical values)
 *   columns: [{name, type}] for messages
 *   reader: name of the reader for the message; label: the case
 *   firstRow: index of actual[0] in the file (for row-group reads)
 */
export function assertRowsEqual(actual, expected, { columns, reader, label = '', firstRow = 0, limit = 10 }) {
  const diffs = [];
  if (actual.length !== expected.length) {
    diffs.push({ path: 'row count', expected: String(expected.length), actual: String(actual.length) });
  }
  const n = Math.min(actual.length, expected.length);
  for (let r = 0; r < n && diffs.length < limit; r++) {
    const a = actual[r];
    const e = expected[r];
    for (let c = 0; c < columns.length && diffs.length < limit; c++) {
      const col = columns[c];
      diffValues(e[c], a[c], `row ${firstRow + r}, column ${col.name} (${col.type.pgType})`, diffs, limit);
    }
  }
  if (diffs.length === 0) return;
  const lines = diffs.map((d) => `  ${d.path}:\n    expected ${show(d.expected, d.actual)}\n    ${reader.padEnd(8)} ${show(d.actual, d.expected)}`);
  assert.fail(`${reader} read back different values${label ? ` for ${label}` : ''}` +
    ` (first ${diffs.length} differences):\n${lines.join('\n')}`);
}
