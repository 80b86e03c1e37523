#!/usr/bin/env node
// A sink worker loading the handler's ~350 modules one by one spends most of its start-up on it;
// the built handler is one file holding them all (the published packages' JavaScript), so a worker
// starts in a fraction of that. Replaces tsc's dist/sink/sink-worker.js; its map would be stale.
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(packageDir, 'dist', 'sink', 'sink-worker.js');
await build({
  entryPoints: [join(packageDir, 'dist', 'sink', 'sink-worker.js')],
  bundle: true,
  allowOverwrite: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outfile: out,
  logLevel: 'warning',
});
rmSync(`${out}.map`, { force: true });
