import { attr, createTensor, encodeKernelDescription } from '@tsge/metadef';
import { readOm } from '@tsge/om';
import { createKernelRegistry, createKernelRegistryOf } from '@tsge/metadef';
import { jsKernelLibrary, interpretGraph } from '@tsge/kernels-js';
import { createDefaultOpRegistry } from '@tsge/ops';
import { describe, expect, it } from 'vitest';
import { compile } from './compile.js';
import { randomFloats, smallCnn } from './test-graphs.js';

describe('compile', () => {
  it('compiles a small CNN end to end into a readable .om', async () => {
    const ops = createDefaultOpRegistry();
    const graph = smallCnn(ops);
    const stages: string[] = [];
    const result = await compile(graph, { ops, optLevel: 2, onProgress: (e) => stages.push(e.stage) });
    expect(stages).toContain('build');
    const { model, diagnostics } = readOm(result.om);
    expect(diagnostics).toEqual([]);
    expect(model?.taskInfo.plans).toHaveLength(1);
    const plan = model?.taskInfo.plans[0];
    const tasks = plan?.streams.flatMap((s) => s.tasks) ?? [];
    const kernelTasks = tasks.filter((t) => t.kind === 'kernel');
    // Identity removed, BN folded into conv1, MatMul+Add became Gemm
    expect(kernelTasks.map((t) => (t.kind === 'kernel' ? t.opType : '')).sort()).toEqual(
      ['Add', 'Conv', 'Conv', 'Flatten', 'Gemm', 'MaxPool', 'Relu', 'Relu'].sort(),
    );
    expect(result.summary.fusions).toMatchObject({ 'conv-batchnorm': 1, 'matmul-add-gemm': 1 });
    expect(result.summary.nodesAfter).toBeLessThan(result.summary.nodesBefore);
    const memory = result.summary.memory;
    expect(memory.lowerBoundBytes).toBeLessThanOrEqual(memory.arenaBytes);
    expect(memory.arenaBytes).toBeLessThanOrEqual(memory.noReuseBytes);
    expect(model?.ioInfo.inputs).toEqual([{ name: 'x', dtype: 'float32', shape: [1, 3, 8, 8] }]);
    expect(model?.ioInfo.outputs[0]).toMatchObject({ name: 'y', dtype: 'float32', shape: [1, 10] });
    // the user's graph is not modified
    expect(graph.findNode('ident')).toBeDefined();
    // the default level (O3) also fuses the Relus into their producers
    const fused = await compile(graph, { ops });
    const fusedTypes = fused.model.taskInfo.plans[0]?.streams.flatMap((s) =>
      s.tasks.flatMap((t) => (t.kind === 'kernel' ? [t.opType] : [])),
    );
    expect(fusedTypes).not.toContain('Relu');
    expect(fusedTypes).toContain('FusedConv');
  });

  it('keeps results equal to the unoptimized graph (host interpretation)', async () => {
    const ops = createDefaultOpRegistry();
    const kernels = createKernelRegistryOf([jsKernelLibrary]);
    const graph = smallCnn(ops);
    const x = createTensor('float32', [1, 3, 8, 8], randomFloats(192, 9));
    const before = interpretGraph(graph, { x }, { kernels });
    const expected = before[0] as { data: Float32Array };
    for (const optLevel of [0, 1, 2, 3] as const) {
      const result = await compile(graph, { ops, kernels, optLevel, verify: true });
      // generated kernels (Conv epilogues at O3) get their KERNELS entry back, as the executor gives it
      for (const node of result.model.graph.nodes) {
        const index = node.opDesc.attrs.get('kernel');
        const d = index?.kind === 'int' ? result.model.kernelDescriptions?.[index.value] : undefined;
        if (d) node.opDesc.attrs.set('description', attr.ints(Array.from(encodeKernelDescription(d))));
      }
      const after = interpretGraph(result.model.graph, { x }, { kernels, weights: result.model.weights })[0] as { data: Float32Array };
      expect(after.data.length).toBe(10);
      for (let i = 0; i < 10; i++) expect(after.data[i]).toBeCloseTo(expected.data[i] as number, 4);
    }
    const fused = await compile(graph, { ops, kernels, optLevel: 3 });
    expect(fused.summary.fusions).toMatchObject({ 'fused-conv-activation': 1, 'fused-gemm-activation': 1 });
  });

  it('throws a TsgeError naming an op without a kernel', async () => {
    const ops = createDefaultOpRegistry();
    const graph = smallCnn(ops);
    await expect(compile(graph, { ops, kernels: createKernelRegistry() })).rejects.toMatchObject({ code: 'TSGE-E4004' });
  });
});
