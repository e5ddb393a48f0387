// wait.mjs: polling helpers for tests that wait on background workers.

import assert from 'node:assert/strict';

/** sleep resolves after ms milliseconds. */
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * waitFor polls check() every 200 ms until it returns a truthy value, which
 * it returns; a check that throws counts as not yet.  Fails after seconds.
 */
export async function waitFor(what, check, seconds = 40) {
  for (let i = 0; i < seconds * 5; i++) {
    let v = null;
    try { v = check(); } catch { v = null; }
    if (v) return v;
    await sleep(200);
  }
  assert.fail(`timed out waiting for ${what}`);
}
