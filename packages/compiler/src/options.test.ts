import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Graph, GraphPassV1, HostTensor, OpRegistry } from '@tsge/metadef';
import { GraphBuilder, TsgeError, attr, createTensor } from '@tsge/metadef';
import { readOm } from '@tsge/om';
import { createKernelRegistryOf } from '@tsge/metadef';
import { jsKernelLibrary, interpretGraph } from '@tsge/kernels-js';
import { createDefaultOpRegistry } from '@tsge/ops';
import { describe, expect, it } from 'vitest';
import { compile } from './compile.js';
import { randomFloats, smallCnn } from './test-graphs.js';

const ops: OpRegistry = createDefaultOpRegistry();
const kernels = createKernelRegistryOf([jsKernelLibrary]);

/** x[batch, 4] → MatMul → Relu → y, with a symbolic batch. */
function symbolic(): Graph {
  const b = new GraphBuilder('sym', { ops });
  const x = b.input('x', 'float32', ['batch', 4]);
  const mm = b.op('MatMul', [x, b.constant('w', createTensor('float32', [4, 3], randomFloats(12)))], { name: 'mm' });
  b.output(b.op('Relu', [mm], { name: 'relu' }), 'y');
  return b.build();
}

describe('compile options', () => {
  it('inputShapes make a symbolic model static', async () => {
    const r = await compile(symbolic(), { ops, kernels, inputShapes: { x: [2, 4] } });
    expect(r.summary.dynamic).toBe(false);
    expect(r.model.taskInfo.plans[0]?.outputs[0]).toMatchObject({ region: 'arena', shape: [2, 3], bytes: 24 });
    await expect(compile(symbolic(), { ops, kernels, inputShapes: { nope: [1] } })).rejects.toMatchObject({ code: 'TSGE-E5005' });
  });

  it('leaves shape-dependent tensors dynamic without gears', async () => {
    const r = await compile(symbolic(), { ops, kernels });
    expect(r.summary.dynamic).toBe(true);
    const { model } = readOm(r.om);
    expect(model?.header.flags.dynamic).toBe(true);
    const plan = model?.taskInfo.plans[0];
    expect(plan?.gear).toBeNull();
    expect(plan?.inputs[0]).toMatchObject({ region: 'dynamic', shape: ['batch', 4] });
    const tasks = plan?.streams.flatMap((s) => s.tasks).filter((t) => t.kind === 'kernel') ?? [];
    for (const t of tasks) if (t.kind === 'kernel') expect(t.outputs[0]?.region).toBe('dynamic');
  });

  it('builds one static plan per gear', async () => {
    const r = await compile(symbolic(), { ops, kernels, dynamicBatchSizes: [1, 8] });
    const { model } = readOm(r.om);
    expect(model?.header.flags).toEqual({ dynamic: false, gears: true });
    const plans = model?.taskInfo.plans ?? [];
    expect(plans.map((p) => p.gear)).toEqual([{ x: [1, 4] }, { x: [8, 4] }]);
    expect(plans.map((p) => p.outputs[0]?.shape)).toEqual([
      [1, 3],
      [8, 3],
    ]);
    expect(model?.ioInfo.inputs[0]?.shape).toEqual(['batch', 4]);
    const dims = await compile(symbolic(), { ops, kernels, dynamicDims: [[2], [3]] });
    expect(dims.model.taskInfo.plans.map((p) => p.gear)).toEqual([{ x: [2, 4] }, { x: [3, 4] }]);
    await expect(compile(symbolic(), { ops, kernels, dynamicDims: [[2, 2]] })).rejects.toMatchObject({ code: 'TSGE-E5005' });
  });

  it('outNodes select the graph outputs', async () => {
    const r = await compile(smallCnn(ops), { ops, kernels, outNodes: ['pool:0', 'relu1'], optLevel: 0 });
    expect(r.model.ioInfo.outputs.map((o) => o.shape)).toEqual([
      [1, 4, 8, 8],
      [1, 4, 8, 8],
    ]);
    expect(r.model.graph.findNode('fc_mm')).toBeUndefined();
    await expect(compile(smallCnn(ops), { ops, kernels, outNodes: ['missing'] })).rejects.toMatchObject({ code: 'TSGE-E5004' });
  });

  it('optimizationSwitch turns passes off, and names unknown ones', async () => {
    const off = await compile(smallCnn(ops), { ops, kernels, optimizationSwitch: { 'conv-batchnorm': false } });
    expect(off.summary.fusions['conv-batchnorm']).toBeUndefined();
    expect(off.summary.passes.map((p) => p.name)).not.toContain('conv-batchnorm');
    const on = await compile(smallCnn(ops), { ops, kernels, optLevel: 0, optimizationSwitch: { 'conv-batchnorm': true } });
    expect(on.summary.fusions['conv-batchnorm']).toBe(1);
    const error = await compile(smallCnn(ops), { ops, kernels, optimizationSwitch: { nope: false } }).catch((e: unknown) => e);
    expect(TsgeError.isInstance(error) && error.code).toBe('TSGE-E5002');
  });

  it('dumps the graph after a pass and runs custom passes at their stage', async () => {
    const dumpDir = mkdtempSync(join(tmpdir(), 'dump-'));
    const seen: string[] = [];
    const watcher = (stage: GraphPassV1['stage']): GraphPassV1 => ({
      specVersion: 'v1',
      name: `watch-${stage}`,
      level: 0,
      stage,
      run(graph) {
        const relu = graph.findNode('out_relu');
        seen.push(`${stage}:${relu?.opDesc.outputDescs[0]?.shape.join('x')}:${relu?.opDesc.streamId ?? '-'}`);
        return { changed: false };
      },
    });
    const stages = [
      'before-infershape',
      'after-infershape',
      'after-builtin-fusion',
      'after-graph-optimize',
      'after-stream-assign',
    ] as const;
    await compile(smallCnn(ops), {
      ops,
      kernels,
      optLevel: 2,
      dumpGraphAfter: 'dead-code-elimination',
      dumpDir,
      customPasses: stages.map(watcher),
    });
    expect(seen).toEqual([
      'before-infershape:1x10:-',
      'after-infershape:1x10:-',
      'after-builtin-fusion:1x10:-',
      'after-graph-optimize:1x10:-',
      'after-stream-assign:1x10:0',
    ]);
    const files = readdirSync(dumpDir);
    expect(files.some((f) => f.endsWith('dead-code-elimination.air'))).toBe(true);
    expect(files.some((f) => f.endsWith('.json'))).toBe(true);
    expect(files.some((f) => f.endsWith('.dot'))).toBe(true);
    expect(existsSync(dumpDir)).toBe(true);
  });

  it('precisionMode fp16 on the js target computes in float16 with float32 inputs and outputs', async () => {
    const graph = smallCnn(ops);
    const x = createTensor('float32', [1, 3, 8, 8], randomFloats(192, 9));
    const fp32 = await compile(graph, { ops, kernels, optLevel: 2, target: 'js', verify: true });
    const fp16 = await compile(graph, { ops, kernels, optLevel: 2, target: 'js', precisionMode: 'fp16', verify: true });
    expect(fp16.summary.counters['fp16-nodes']).toBeGreaterThan(5);
    expect(fp16.model.ioInfo).toEqual(fp32.model.ioInfo);
    expect(fp16.summary.weightsBytes).toBeLessThan(0.6 * fp32.summary.weightsBytes);
    const conv = fp16.model.graph.nodes.find((n) => n.type === 'Conv');
    expect(conv?.opDesc.outputDescs[0]?.dtype).toBe('float16');
    const run = (r: typeof fp32) => interpretGraph(r.model.graph, { x }, { kernels, weights: r.model.weights })[0] as HostTensor;
    const a = run(fp32);
    const b = run(fp16);
    expect(b.type).toBe('float32');
    for (let i = 0; i < 10; i++)
      expect(Math.abs((b.data[i] as number) - (a.data[i] as number))).toBeLessThan(0.05 + 0.01 * Math.abs(a.data[i] as number));
  });

  it('precisionMode fp16 on wasm-simd keeps float32 compute and stores the weights as float16', async () => {
    const graph = smallCnn(ops);
    const fp32 = await compile(graph, { ops, kernels, optLevel: 2, verify: true });
    const fp16 = await compile(graph, { ops, kernels, optLevel: 2, precisionMode: 'fp16', verify: true });
    expect(fp16.summary.counters['float16-weights']).toBeGreaterThan(0);
    expect(fp16.summary.weightsBytes).toBeLessThan(0.6 * fp32.summary.weightsBytes);
    expect(fp16.model.graph.nodes.every((n) => n.opDesc.outputDescs.every((d) => d.dtype !== 'float16'))).toBe(true);
    const storage = fp16.model.taskInfo.weightStorage;
    expect(storage?.deviceBytes).toBe(fp32.model.weights.length);
    expect(storage?.spans.some(([, , , kind]) => kind === 1)).toBe(true);
  });

  it('reports ops that are not registered', async () => {
    const b = new GraphBuilder('unknown');
    const x = b.input('x', 'float32', [2]);
    b.output(b.op('NoSuchOp', [x], { name: 'weird', attrs: { a: attr.int(1) } }), 'y');
    const error = await compile(b.build(), { ops, kernels }).catch((e: unknown) => e);
    expect(TsgeError.isInstance(error) && error.code).toBe('TSGE-E1015');
  });
});
