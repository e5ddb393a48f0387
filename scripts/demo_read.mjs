// demo_read.mjs FILE: reads every Iceberg table listed in FILE (one metadata
// location a line) with icebird, whole (metadata, manifest list, manifests,
// Parquet), and prints what it found.
import fs from 'node:fs';
import { readIcebergTable, readMetadata } from '../test/interop/lib/iceberg.mjs';

const locations = fs.readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean);
const summary = [];
let subscriptions = [];
for (const location of locations) {
  const rows = await readIcebergTable(location);
  const md = readMetadata(location);
  const table = md.location.split('/').pop();
  summary.push({ table, rows: rows.length, snapshots: md.snapshots.length,
    columns: md.schemas.at(-1).fields.length, 'format-version': md['format-version'] });
  if (table === 'subscriptions') subscriptions = rows;
}
console.table(summary);
const byStatus = {};
for (const s of subscriptions) {
  byStatus[s.status] ??= { subscriptions: 0, 'unit_amount total': 0 };
  byStatus[s.status].subscriptions++;
  byStatus[s.status]['unit_amount total'] += Number(s.unit_amount);
}
console.log('\nsubscriptions by status, from the Iceberg table:');
console.table(byStatus);
