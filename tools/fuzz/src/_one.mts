import { readFileSync } from 'node:fs';
import { registry } from './campaigns/index.js';
const c = registry.get(process.argv[2]!)!;
const t0 = performance.now();
try {
  await c.run(new Uint8Array(readFileSync(process.argv[3]!)));
  console.log('ok', (performance.now() - t0).toFixed(0));
} catch (e) {
  console.log('ERR', (performance.now() - t0).toFixed(0), String((e as Error).stack).slice(0, 1500));
}
