// Real ONNX models compiled to .om run identically on two worker threads (sink mode), on the calling
// thread and in host mode.
import path from 'node:path';
import { buildModel, loadModel, parseModel } from '@tsge/ge';
import type { HostTensor, RuntimeValue } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';

const onnxDir = path.resolve(process.cwd(), '../shared/testdata/models/onnx');
const cases = [
  { file: 'mnist.onnx', shapes: {} as Record<string, number[]> },
  { file: 'pytorch_super_resolution.onnx', shapes: { input: [1, 1, 32, 32] } },
];

function feedFor(name: string, dims: number[]): Record<string, HostTensor> {
  const count = dims.reduce((a, b) => a * b, 1);
  return { [name]: { type: 'float32', dims, data: Float32Array.from({ length: count }, (_, i) => Math.sin(i * 0.37)) } };
}
const flat = (outputs: Record<string, RuntimeValue>): number[][] =>
  Object.keys(outputs)
    .sort()
    .map((k) => Array.from((outputs[k] as HostTensor).data as Float32Array));

describe('real models in every execution mode', () => {
  for (const c of cases) {
    it(c.file, { timeout: 300_000 }, async () => {
      const file = path.join(onnxDir, c.file);
      const graph = await parseModel(file, { inputShapes: c.shapes });
      const om = await buildModel(graph, { inputShapes: c.shapes });
      const results: number[][][] = [];
      for (const options of [{ threads: 2 }, { threads: 1 }, { threads: 1, mode: 'host' as const }]) {
        const executor = await loadModel(om, options);
        try {
          const input = executor.inputMetadata[0];
          if (!input) throw new Error('model without inputs');
          const dims = input.shape.map((d) => (typeof d === 'number' && d > 0 ? d : 1));
          results.push(flat(await executor.run(feedFor(input.name, dims))));
        } finally {
          await executor.release();
        }
      }
      expect(results[0]?.[0]?.length).toBeGreaterThan(0);
      expect(results[0]?.flat().every(Number.isFinite)).toBe(true);
      expect(results[1]).toEqual(results[0]);
      expect(results[2]).toEqual(results[0]);
    });
  }
});
