// A/B: decomposed LayerNorm / softmax blocks, unfused vs generated row-reduction kernel (vs hand-written LayerNormalization)
import { compileModel, loadModel, parseModel } from '@tsge/ge';
import { lcg, randomFloats } from '../src/transformer/ort-compare.fixture.js';
import { type NodeSpec, onnxModel } from '../src/transformer/single-node-model.fixture.js';

const random = lcg(3);
const op = (opType: string, inputs: string[], outputs: string[], attrs: any[] = []): NodeSpec => ({ opType, domain: '', inputs, outputs, attrs });
const cst = (name: string, dims: number[], data: Float32Array): NodeSpec => ({ opType: 'Constant', domain: '', inputs: [], outputs: [name], attrs: [{ name: 'value', tensor: { dims, data } }] });
const ax = { name: 'axes', ints: [-1] };
const n = 768;
const ln: NodeSpec[] = [
  op('ReduceMean', ['x'], ['m'], [ax]), op('Sub', ['x', 'm'], ['d']), cst('two', [], Float32Array.of(2)), op('Pow', ['d', 'two'], ['sq']),
  op('ReduceMean', ['sq'], ['v'], [ax]), cst('eps', [], Float32Array.of(1e-5)), op('Add', ['v', 'eps'], ['ve']), op('Sqrt', ['ve'], ['s']),
  op('Div', ['d', 's'], ['nn']), cst('g', [n], randomFloats('float32', [n], random).data as Float32Array), op('Mul', ['nn', 'g'], ['gg']),
  cst('b', [n], randomFloats('float32', [n], random).data as Float32Array), op('Add', ['gg', 'b'], ['y']),
];
const sm: NodeSpec[] = [
  op('ReduceMax', ['x'], ['mx'], [ax]), op('Sub', ['x', 'mx'], ['sh']), op('Exp', ['sh'], ['e']),
  { opType: 'Constant', domain: '', inputs: [], outputs: ['axes'], attrs: [{ name: 'value_ints', ints: [-1] }] },
  op('ReduceSum', ['e', 'axes'], ['su']), op('Div', ['e', 'su'], ['y']),
];
const f32 = (name: string, dims: number[]) => ({ name, type: 'float32' as const, dims });
const blocks = [
  { name: 'LayerNorm [128,768]', nodes: ln, dims: [1, 128, n], opset: 17 },
  { name: 'softmax [12,128,128]', nodes: sm, dims: [1, 12, 128, 128], opset: 17 },
];
const threads = Number(process.env.THREADS ?? 1);
for (const b of blocks) {
  const bytes = onnxModel(b.nodes, [f32('x', b.dims)], [f32('y', b.dims)], b.opset);
  const variants: Record<string, any> = {
    unfused: { optimizationSwitch: { 'auto-fusion': false, 'layer-norm': false } },
    generated: { optimizationSwitch: { 'layer-norm': false } },
  };
  if (b.name.startsWith('Layer')) variants.handwritten = {};
  const models: Record<string, any> = {};
  for (const [k, o] of Object.entries(variants)) models[k] = await loadModel((await compileModel(await parseModel(bytes, { fileName: 'b.onnx' }), o)).om, { threads });
  if (b.name.startsWith('softmax')) {
    const hand = onnxModel([op('Softmax', ['x'], ['y'], [{ name: 'axis', int: -1 }])], [f32('x', b.dims)], [f32('y', b.dims)], b.opset);
    models.handwritten = await loadModel((await compileModel(await parseModel(hand, { fileName: 'h.onnx' }))).om, { threads });
  }
  const feeds = { x: randomFloats('float32', b.dims, random) };
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(models).map((k) => [k, []]));
  for (let round = 0; round < 15; round++)
    for (const [k, m] of Object.entries(models)) {
      const reps = 10;
      await m.run(feeds);
      const t0 = performance.now();
      for (let i = 0; i < reps; i++) await m.run(feeds);
      times[k]!.push((performance.now() - t0) / reps);
    }
  const med = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!;
  console.log(b.name, `threads ${threads}`, Object.entries(times).map(([k, v]) => `${k} ${med(v).toFixed(3)} ms`).join(', '), `ratio unfused/generated ${(med(times.unfused!) / med(times.generated!)).toFixed(2)}`);
  for (const m of Object.values(models)) await m.release();
}
