// one-process A/B of a RequantizedConv layer: weights as bytes (repacked per run) vs packed at compile time
import { type AttrValue, type HostTensor, type KernelContextV1, attr, createAttrReader, createTensor, readNumber } from '@tsge/metadef';
import { packIntWeights, packedWeightAttr, packedWeightShape, PACKED_WEIGHT } from '@tsge/ops';
import { simdIntConvKernels } from './simd-int-conv.js';
import { bytes, referenceOf, tensorOf } from './simd-int-test-support.fixture.js';
import { wasmMemory } from './simd-test-support.fixture.js';
const [, rc] = simdIntConvKernels(referenceOf);
const layers = [
  { name: '7x7 960->160', x: [1, 960, 7, 7], w: [160, 960, 1, 1] },
  { name: '7x7 320->1280', x: [1, 320, 7, 7], w: [1280, 320, 1, 1] },
  { name: '14x14 384->64', x: [1, 384, 14, 14], w: [64, 384, 1, 1] },
  { name: '28x28 32->192', x: [1, 32, 28, 28], w: [192, 32, 1, 1] },
  { name: '112x112 16->96', x: [1, 16, 112, 112], w: [96, 16, 1, 1] },
];
function ctxOf(memory: any, inputs: (HostTensor | undefined)[], attrs: Record<string, AttrValue>): KernelContextV1 {
  let offset = 64;
  const ts = inputs.map((t) => {
    if (!t) return undefined;
    const C = t.data.constructor as any;
    const d = new C(memory.buffer, offset, t.data.length);
    d.set(t.data);
    offset += Math.ceil((t.data.byteLength + 16) / 64) * 64;
    return { type: t.type, dims: [...t.dims], data: d } as HostTensor;
  });
  let out: HostTensor | undefined;
  return {
    nodeName: 'n', opType: 'RequantizedConv', attrs: createAttrReader(new Map(Object.entries(attrs))), inputCount: ts.length, outputCount: 1, opsetVersion: 21, memory,
    input: (i) => ts[i], tensor: (i) => ts[i],
    output: (_i, dims, dtype) => {
      if (!out) { const t = createTensor(dtype, dims); out = { type: dtype, dims: [...dims], data: new Uint8Array(memory.buffer, 40 * 65536, t.data.length) } as HostTensor; }
      return out;
    },
    setOutput: () => {}, runSubgraph: () => [],
  } as KernelContextV1;
}
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
for (const l of layers) {
  const m = l.w[0]!;
  const x = bytes('uint8', l.x, 1), w = bytes('uint8', l.w, 2);
  const xz = tensorOf('uint8', [], () => 128), wz = tensorOf('uint8', [], () => 120);
  const bias = tensorOf('int32', [m], (i) => i * 31), scale = tensorOf('float32', [], () => 0.001), yz = tensorOf('uint8', [], () => 127);
  const ints = packedWeightAttr(l.w); const shape = packedWeightShape(ints) as any;
  const packed = createTensor('int16', [m, shape.k16], packIntWeights(Array.from(w.data as Uint8Array, (v) => v - 120), shape, 1));
  const A = ctxOf(wasmMemory(false, 64), [x, w, xz, wz, bias, scale, yz], {});
  const B = ctxOf(wasmMemory(false, 64), [x, packed, xz, undefined, bias, scale, yz], { [PACKED_WEIGHT]: attr.ints(ints), kernel_shape: attr.ints([1, 1]) });
  const reps = Math.max(3, Math.round(3e8 / (m * l.w[1]! * l.x[2]! * l.x[3]!)));
  const ta: number[] = [], tb: number[] = [];
  for (let r = 0; r < 12; r++) {
    let c = cpu(); for (let i = 0; i < reps; i++) rc.compute(A); ta.push((cpu() - c) / reps);
    c = cpu(); for (let i = 0; i < reps; i++) rc.compute(B); tb.push((cpu() - c) / reps);
  }
  const ya = A.output(0, [], 'uint8').data as Uint8Array, yb = B.output(0, [], 'uint8').data as Uint8Array;
  const same = ya.every((v, i) => v === yb[i]);
  const med = (a: number[]) => [...a].sort((p, q) => p - q)[a.length >> 1]!;
  console.log(l.name.padEnd(16), 'bytes', med(ta).toFixed(4), 'ms  packed', med(tb).toFixed(4), 'ms  ratio', (med(ta) / med(tb)).toFixed(3), same ? 'same' : 'DIFFERENT');
}
