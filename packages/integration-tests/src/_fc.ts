import os from 'node:os';
import { compileModel, loadModel, parseModel } from '@tsge/ge';
import { lcg, randomFloats } from './transformer/ort-compare.fixture.js';
import { onnxModel } from './transformer/single-node-model.fixture.js';
const random = lcg(3);
const [k, n, m, tb] = (process.argv[2] ?? "2048,1000,1,1").split(",").map(Number) as [number, number, number, number];
const bytes = onnxModel(
  [
    { opType: 'Constant', domain: '', inputs: [], outputs: ['w'], attrs: [{ name: 'value', tensor: { dims: tb ? [n, k] : [k, n], data: randomFloats('float32', [n, k], random).data as Float32Array } }] },
    { opType: 'Constant', domain: '', inputs: [], outputs: ['b'], attrs: [{ name: 'value', tensor: { dims: [n], data: randomFloats('float32', [n], random).data as Float32Array } }] },
    { opType: 'Gemm', domain: '', inputs: ['x', 'w', 'b'], outputs: ['y'], attrs: [{ name: 'transB', int: tb }] },
  ],
  [{ name: 'x', type: 'float32', dims: [m, k] }],
  [{ name: 'y', type: 'float32', dims: [m, n] }],
  13,
);
const graph = await parseModel(bytes, { fileName: 'fc.onnx' });
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)] as number;
for (const threads of [1]) {
  const ex = {
    new: await loadModel((await compileModel(graph)).om, { threads }),
    old: await loadModel((await compileModel(graph, { optimizationSwitch: { 'pack-matmul-weights': false } })).om, { threads }),
  };
  for (const e of Object.values(ex)) await e.whenReady();
  const feeds = { x: randomFloats('float32', [m, k], random) };
  const t: Record<string, number[]> = { new: [], old: [] };
  for (let r = 0; r < 40; r++)
    for (const key of ['new', 'old'] as const) {
      for (let i = 0; i < 5; i++) {
        const s = performance.now();
        await ex[key].run(feeds);
        t[key]!.push(performance.now() - s);
      }
    }
  console.log(`FC ${m}x${k}x${n} transB ${tb} threads ${threads}: new ${med(t.new!).toFixed(3)} ms, old ${med(t.old!).toFixed(3)} ms, new/old ${(med(t.new!) / med(t.old!)).toFixed(2)}; load ${os.loadavg()[0]?.toFixed(1)}`);
  for (const e of Object.values(ex)) await e.release();
}
process.exit(0);
