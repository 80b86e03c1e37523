// `node --conditions=@tsge/source --import tsx tools/bench/src/cold-start.ts <model id> [threads]`:
// loads out/bench/<id>.om (written by `pnpm bench`) in a fresh process and times loadModel, the
// run made at once after it, when the workers are up, and the runs after that.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadModel } from '@tsge/ge';
import { benchFeeds } from './feeds.js';
import { benchModels } from './models.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const id = process.argv[2] ?? 'mnist';
const threads = Number(process.argv[3] ?? 2);
const model = benchModels(repoRoot).find((m) => m.id === id);
if (!model) throw new Error(`unknown model ${id}`);
const om = new Uint8Array(await readFile(path.join(repoRoot, 'out', 'bench', `${id}.om`)));
const t0 = performance.now();
const executor = await loadModel(om, { threads });
const loaded = performance.now();
let readyAt = Number.NaN;
void executor.whenReady().then(() => {
  readyAt = performance.now();
});
const feeds = benchFeeds(model, executor.inputMetadata);
const first0 = performance.now();
await executor.run(feeds);
const first = performance.now() - first0;
await executor.whenReady();
const steady: number[] = [];
for (let i = 0; i < 5; i++) {
  const s = performance.now();
  await executor.run(feeds);
  steady.push(performance.now() - s);
}
steady.sort((a, b) => a - b);
const median = steady[2] as number;
const f = (x: number): string => x.toFixed(1);
console.log(
  `${id}: load ${f(loaded - t0)} ms, first run ${f(first)} ms (${(first / median).toFixed(2)}× median ${f(median)}), ready ${f(readyAt - loaded)} ms after load`,
);
await executor.release();
