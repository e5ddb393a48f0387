// metadata.mjs: the Parquet schema we expect for a Postgres type, and
// DuckDB's parquet_schema() rows rebuilt into a tree.

/** decimalByteLength is the smallest FLBA length holding `precision` digits (Iceberg spec). */
export function decimalByteLength(precision) {
  let n = 1;
  while (2n ** BigInt(8 * n - 1) - 1n < 10n ** BigInt(precision) - 1n) n++;
  return n;
}

/** schemaTree rebuilds parquet_schema() rows (in file order) into {row, children}. */
export function schemaTree(rows) {
  let i = 0;
  const build = () => {
    const row = rows[i++];
    const n = Number(row.num_children ?? 0);
    const children = [];
    for (let k = 0; k < n; k++) children.push(build());
    return { row, children };
  };
  return build();
}

/**
 * expectedSchema describes what the node of a column of Postgres type t
 * must look like:
 *   { type, type_length?, converted: [allowed], logical: RegExp|null, precision?, scale?, children? }
 */
export function expectedSchema(t) {
  const str = { type: 'BYTE_ARRAY', converted: ['UTF8'], logical: /^StringType\(\)$/ };
  switch (t.kind) {
    case 'int2':
    case 'int4':
      return { type: 'INT32', converted: [null, 'INT_32'], logical: /^(IntType\(bitWidth=32, isSigned=(1|true)\))?$/ };
    case 'int8':
      return { type: 'INT64', converted: [null, 'INT_64'], logical: /^(IntType\(bitWidth=64, isSigned=(1|true)\))?$/ };
    case 'float4':
      return { type: 'FLOAT', converted: [null], logical: null };
    case 'float8':
      return { type: 'DOUBLE', converted: [null], logical: null };
    case 'bool':
      return { type: 'BOOLEAN', converted: [null], logical: null };
    case 'numeric': {
      const p = t.precision ?? 38;
      const s = t.scale ?? 9;
      const e = {
        converted: ['DECIMAL'], precision: p, scale: s,
        logical: new RegExp(`^DecimalType\\(scale=${s}, precision=${p}\\)$`),
      };
      if (p <= 9) return { ...e, type: 'INT32' };
      if (p <= 18) return { ...e, type: 'INT64' };
      return { ...e, type: 'FIXED_LEN_BYTE_ARRAY', type_length: decimalByteLength(p) };
    }
    case 'date':
      return { type: 'INT32', converted: ['DATE'], logical: /^DateType\(\)$/ };
    case 'time':
      return { type: 'INT64', converted: ['TIME_MICROS'], logical: /^TimeType\(isAdjustedToUTC=0, unit=TimeUnit\(MILLIS=<null>, MICROS=MicroSeconds\(\), NANOS=<null>\)\)$/ };
    case 'timestamp':
      return { type: 'INT64', converted: ['TIMESTAMP_MICROS'], logical: /^TimestampType\(isAdjustedToUTC=0, unit=TimeUnit\(MILLIS=<null>, MICROS=MicroSeconds\(\), NANOS=<null>\)\)$/ };
    case 'timestamptz':
      return { type: 'INT64', converted: ['TIMESTAMP_MICROS'], logical: /^TimestampType\(isAdjustedToUTC=1, unit=TimeUnit\(MILLIS=<null>, MICROS=MicroSeconds\(\), NANOS=<null>\)\)$/ };
    case 'uuid':
      return { type: 'FIXED_LEN_BYTE_ARRAY', type_length: 16, converted: [null], logical: /^UUIDType\(\)$/ };
    case 'bytea':
      return { type: 'BYTE_ARRAY', converted: [null], logical: null };
    case 'array':
      return { type: null, converted: ['LIST'], logical: /^(ListType\(\))?$/, list: expectedSchema(t.element) };
    case 'composite':
      return { type: null, converted: [null], logical: null, fields: t.fields.map((f) => ({ name: f.name, ...expectedSchema(f.type) })) };
    default: // string kinds, json, jsonb, other
      return str;
  }
}

/**
 * checkNode compares a schema tree node with expectations and pushes
 * messages for every difference into problems.
 */
export function checkNode(node, exp, where, problems) {
  const r = node.row;
  const say = (m) => problems.push(`${where}: ${m}`);
  if ((r.type ?? null) !== exp.type) say(`physical type ${r.type}, expected ${exp.type}`);
  if (exp.type_length !== undefined && Number(r.type_length) !== exp.type_length) {
    say(`type_length ${r.type_length}, expected ${exp.type_length}`);
  }
  if (!exp.converted.includes(r.converted_type ?? null)) {
    say(`converted_type ${r.converted_type}, expected ${exp.converted.map(String).join(' or ')}`);
  }
  if (exp.logical === null) {
    if (r.logical_type != null) say(`logical_type ${r.logical_type}, expected none`);
  } else if (!exp.logical.test(r.logical_type ?? '')) {
    say(`logical_type ${r.logical_type}, expected ${exp.logical}`);
  }
  if (exp.precision !== undefined) {
    if (Number(r.precision) !== exp.precision || Number(r.scale) !== exp.scale) {
      say(`decimal(${r.precision}, ${r.scale}), expected decimal(${exp.precision}, ${exp.scale})`);
    }
  }
  if (r.repetition_type !== 'OPTIONAL') say(`repetition ${r.repetition_type}, expected OPTIONAL`);
  if (exp.list) {
    // Three-level list: <name> (LIST) > repeated group "list" > "element".
    const rep = node.children[0];
    if (node.children.length !== 1 || !rep) {
      say(`list has ${node.children.length} children, expected 1`);
      return;
    }
    if (rep.row.repetition_type !== 'REPEATED' || rep.row.name !== 'list' || rep.children.length !== 1) {
      say(`list's middle level is ${rep.row.repetition_type} "${rep.row.name}" with ${rep.children.length} children, expected one REPEATED group "list" with 1 child`);
      return;
    }
    const el = rep.children[0];
    if (el.row.name !== 'element') say(`list element is named "${el.row.name}", expected "element"`);
    checkNode(el, exp.list, `${where}.list.element`, problems);
  }
  if (exp.fields) {
    const names = node.children.map((c) => c.row.name);
    const want = exp.fields.map((f) => f.name);
    if (names.join('\u0000') !== want.join('\u0000')) {
      say(`struct fields ${JSON.stringify(names)}, expected ${JSON.stringify(want)}`);
      return;
    }
    exp.fields.forEach((f, i) => checkNode(node.children[i], f, `${where}.${f.name}`, problems));
  }
}

/** fieldIds lists [dotted path, field_id] of every node below the root. */
export function fieldIds(node, prefix = '') {
  const out = [];
  for (const c of node.children) {
    const p = prefix ? `${prefix}.${c.row.name}` : c.row.name;
    out.push([p, c.row.field_id == null ? null : Number(c.row.field_id), c]);
    out.push(...fieldIds(c, p));
  }
  return out;
}
