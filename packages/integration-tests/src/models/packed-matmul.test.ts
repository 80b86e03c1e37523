// MatMul and FusedMatMul with a constant B compile to tsge::PackedMatMul (B stored in 8-column panels
// in the .om): decode-shaped rows (GEMV on the panels), more rows (blocked GEMM on the panels), partial
// last panels, odd K, a bias and an activation, on one and two threads, against onnxruntime-node.
import { compileModel, loadModel, parseModel } from '@tsge/ge';
import type { TraceEvent } from '@tsge/ge';
import { describe, expect, it } from 'vitest';
import { expectLikeOrt, lcg, randomFloats } from '../transformer/ort-compare.fixture.js';
import { type NodeSpec, type Operand, onnxModel } from '../transformer/single-node-model.fixture.js';

const random = lcg(41);
const f32 = (name: string, dims: readonly (number | string)[]): Operand => ({ name, type: 'float32', dims });
const constant = (name: string, dims: number[]): NodeSpec => ({
  opType: 'Constant',
  domain: '',
  inputs: [],
  outputs: [name],
  attrs: [{ name: 'value', tensor: { dims, data: randomFloats('float32', dims, random).data as Float32Array } }],
});
const op = (opType: string, inputs: string[], outputs: string[]): NodeSpec => ({ opType, domain: '', inputs, outputs });

/** y = MatMul(x[batch, rows, k], W[k, n]) (+ b, Relu): W and b are Constant nodes. */
function model(k: number, n: number, epilogue: boolean): Uint8Array {
  const nodes = [constant('w', [k, n]), op('MatMul', ['x', 'w'], [epilogue ? 'h' : 'y'])];
  if (epilogue) nodes.push(constant('b', [n]), op('Add', ['h', 'b'], ['hb']), op('Relu', ['hb'], ['y']));
  return onnxModel(nodes, [f32('x', ['batch', 'rows', k])], [f32('y', ['batch', 'rows', n])], 17);
}

describe('PackedMatMul (constant B in panels)', () => {
  const shapes: [rows: number, k: number, n: number][] = [
    [1, 64, 48], // decode GEMV, whole panels
    [1, 37, 61], // odd K, a partial last panel
    [3, 96, 200],
    [4, 9, 13],
    [5, 33, 100], // past the GEMV: the GEMM on panels
    [70, 130, 77],
    [2, 512, 1037], // enough work for several tiles on two threads
    [80, 1024, 37], // K a multiple of 512: the GEMM copies each block of panels side by side first
  ];
  for (const [rows, k, n] of shapes)
    for (const epilogue of [false, true])
      it(`${rows}×${k} · ${k}×${n}${epilogue ? ' + bias, Relu' : ''}`, async () => {
        const bytes = model(k, n, epilogue);
        const compiled = await compileModel(await parseModel(bytes, { fileName: 'packed.onnx' }));
        expect(compiled.summary.counters['matmul-weights-packed']).toBe(1);
        for (const threads of [1, 2])
          await expectLikeOrt({
            label: `packed ${rows}x${k}x${n} t${threads}`,
            bytes,
            feeds: { x: randomFloats('float32', [2, rows, k], random) },
            outputs: ['y'],
            tolerance: 1e-4,
            threads,
          });
      });

  it('runs on the SIMD kernel, and a B that another op also reads is left unpacked', async () => {
    const bytes = model(64, 40, true);
    const loaded = await loadModel((await compileModel(await parseModel(bytes, { fileName: 'packed.onnx' }))).om, {
      threads: 1,
      profile: true,
    });
    await loaded.run({ x: randomFloats('float32', [1, 1, 64], random) });
    const kernels = loaded
      .profile()
      .traceEvents.filter((e): e is TraceEvent => e.ph === 'X' && e.cat !== 'tile')
      .map((e) => `${e.cat}/${'kernel' in e.args ? e.args.kernel : ''}`);
    await loaded.release();
    expect(kernels).toContain('PackedMatMul/wasm-simd');
    const shared = onnxModel(
      [constant('w', [16, 16]), op('MatMul', ['x', 'w'], ['h']), op('Mul', ['h', 'w'], ['y'])],
      [f32('x', [16, 16])],
      [f32('y', [16, 16])],
      17,
    );
    const compiled = await compileModel(await parseModel(shared, { fileName: 'shared.onnx' }));
    expect(compiled.summary.counters['matmul-weights-packed'] ?? 0).toBe(0);
    await expectLikeOrt({
      label: 'shared B',
      bytes: shared,
      feeds: { x: randomFloats('float32', [16, 16], random) },
      outputs: ['y'],
      tolerance: 1e-4,
    });
  });
});
