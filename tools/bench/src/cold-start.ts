// `node --conditions=@tsge/source --import tsx tools/bench/src/cold-start.ts <model id> [threads] [loads] [init]`:
// loads out/bench/<id>.om (written by `pnpm bench`) in a fresh process and times loadModel, the
// run made at once after it, when the workers are up, and the runs after that; with `loads` > 1
// it does so that many times in the process, releasing each model before the next load (a later
// load may take the worker threads an earlier one left). Each phase also gets
// its CPU time, all threads (workers booting compete with the run on the same cores) and the calling
// thread's (Linux, 10 ms ticks): unlike wall time, these hold on a loaded machine. The first run's
// minor page faults (whole process) count the fresh memory it touched. With `init`, the process first
// calls `initialize({ workers: threads })` (GE's initialisation: threads started, kernel code compiled).
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { initialize, loadModel } from '@tsge/ge';
import { benchFeeds } from './feeds.js';
import { benchModels } from './models.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const id = process.argv[2] ?? 'mnist';
const threads = Number(process.argv[3] ?? 2);
const loads = Number(process.argv[4] ?? 1);
const model = benchModels(repoRoot).find((m) => m.id === id);
if (!model) throw new Error(`unknown model ${id}`);
const om = new Uint8Array(await readFile(path.join(repoRoot, 'out', 'bench', `${id}.om`)));
if (process.argv[5] === 'init') {
  const i0 = performance.now();
  await initialize({ workers: threads });
  console.log(`initialize({ workers: ${threads} }): ${(performance.now() - i0).toFixed(1)} ms`);
}

/** CPU milliseconds of the whole process, and of this thread where the system tells (else NaN). */
function cpu(): { all: number; here: number } {
  const usage = process.cpuUsage();
  let here = Number.NaN;
  try {
    // fields 14 and 15 of /proc/<tid>/stat: user and system time in clock ticks (100 a second)
    const fields = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
    here = (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    // not Linux: the process figure only
  }
  return { all: (usage.user + usage.system) / 1000, here };
}
const f = (x: number): string => x.toFixed(1);
const spent = (from: ReturnType<typeof cpu>, to: ReturnType<typeof cpu>): string =>
  `cpu ${(to.all - from.all).toFixed(0)}, calling thread ${(to.here - from.here).toFixed(0)}`;

for (let n = 0; n < loads; n++) {
  const c0 = cpu();
  const t0 = performance.now();
  // a model with run-time dims is warmed on the shapes it will run, as the bench does
  const executor = await loadModel(om, { threads, ...(model.dynamic ? { warmUp: { shapes: model.inputShapes } } : {}) });
  const loaded = performance.now();
  const c1 = cpu();
  let readyAt = Number.NaN;
  void executor.whenReady().then(() => {
    readyAt = performance.now();
  });
  const feeds = benchFeeds(model, executor.inputMetadata);
  const c2 = cpu();
  const faults0 = process.resourceUsage().minorPageFault;
  const first0 = performance.now();
  await executor.run(feeds);
  const first = performance.now() - first0;
  const faults = process.resourceUsage().minorPageFault - faults0;
  const c3 = cpu();
  await executor.whenReady();
  const c4 = cpu();
  const steady: number[] = [];
  for (let i = 0; i < 5; i++) {
    const s = performance.now();
    await executor.run(feeds);
    steady.push(performance.now() - s);
  }
  steady.sort((a, b) => a - b);
  const median = steady[2] as number;
  console.log(
    `${id}${loads > 1 ? ` #${n + 1}` : ''}: load ${f(loaded - t0)} ms (${spent(c0, c1)}), first run ${f(first)} ms (${(first / median).toFixed(2)}× median ${f(median)}; ${spent(c2, c3)}; ${faults} page faults), ready ${f(readyAt - loaded)} ms after load (${spent(c3, c4)} after the first run)`,
  );
  await executor.release();
}
