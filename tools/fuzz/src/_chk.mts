import { registry } from './campaigns/index.js';
const c = registry.get(process.argv[2]!)!;
const seeds = await c.seeds({ testdata: '/work/wt/shared/testdata' });
for (const s of seeds) {
  const t0 = performance.now();
  try {
    await c.run(s.bytes);
    console.log('ok', s.name, (performance.now() - t0).toFixed(0));
  } catch (e) {
    console.log('ERR', s.name, (performance.now() - t0).toFixed(0), String((e as Error).message).slice(0, 300));
  }
}
