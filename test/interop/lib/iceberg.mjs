// iceberg.mjs: reads Iceberg tables of a local warehouse with icebird, a
// reader this project did not write.
//
// icebird fetches everything with fetch(); Node's fetch has no file://, so
// installFileFetch() teaches it file:// URLs (whole files, HEAD and byte
// ranges), which is all icebird and hyparquet ask for.

import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { icebergRead } from 'icebird';

let installed = false;

/** installFileFetch makes globalThis.fetch serve file:// URLs from disk. */
export function installFileFetch() {
  if (installed) return;
  installed = true;
  const realFetch = globalThis.fetch;
  globalThis.fetch = async (input, init = {}) => {
    const url = typeof input === 'string' ? input : input.url ?? String(input);
    if (!url.startsWith('file://')) return realFetch(input, init);
    const file = fileURLToPath(url);
    let stat;
    try {
      stat = fs.statSync(file);
    } catch {
      return new Response('not found', { status: 404, statusText: 'Not Found' });
    }
    const method = (init.method || 'GET').toUpperCase();
    const headers = new Headers(init.headers || {});
    if (method === 'HEAD') {
      return new Response(null, { status: 200, headers: { 'content-length': String(stat.size) } });
    }
    const range = headers.get('range');
    const data = fs.readFileSync(file);
    if (range) {
      const m = /^bytes=(\d+)-(\d*)$/.exec(range);
      if (!m) return new Response('bad range', { status: 416 });
      const start = Number(m[1]);
      const end = m[2] === '' ? data.length - 1 : Math.min(Number(m[2]), data.length - 1);
      const body = data.subarray(start, end + 1);
      return new Response(body, {
        status: 206,
        headers: { 'content-length': String(body.length), 'content-range': `bytes ${start}-${end}/${data.length}` },
      });
    }
    return new Response(data, { status: 200, headers: { 'content-length': String(data.length) } });
  };
}

/**
 * readIcebergTable reads a whole table at its current snapshot (or at the
 * given metadata file) and returns its rows.
 */
export async function readIcebergTable(metadataLocation) {
  installFileFetch();
  const slash = metadataLocation.lastIndexOf('/metadata/');
  const tableUrl = metadataLocation.slice(0, slash);
  const metadataFileName = metadataLocation.slice(slash + '/metadata/'.length);
  return icebergRead({ tableUrl, metadataFileName });
}

/** readMetadata parses a table metadata file. */
export function readMetadata(metadataLocation) {
  return JSON.parse(fs.readFileSync(fileURLToPath(metadataLocation), 'utf8'));
}
