import { describe, expect, it } from 'vitest';
import { readOm } from './read-om.js';
import { sampleModel } from './test-model.js';
import { writeOm } from './write-om.js';

// Found by `pnpm fuzz` (om-fixed): IO_INFO edited to say an int64 input is bool made the executor
// copy the feed into an int64 place and throw a raw TypeError. The reader now requires IO_INFO and
// every plan to describe the same inputs and outputs.
describe('.om plans agree with IO_INFO', () => {
  const problem = (edit: (m: ReturnType<typeof sampleModel>) => void): string => {
    const model = sampleModel();
    edit(model);
    const { model: read, diagnostics } = readOm(writeOm(model));
    expect(read).toBeUndefined();
    expect(diagnostics[0]?.code).toBe('TSGE-E2006');
    return diagnostics[0]?.message ?? '';
  };

  it('accepts the sample as written', () => {
    expect(readOm(writeOm(sampleModel())).diagnostics).toEqual([]);
  });

  it('rejects a dtype, rank, fixed dim or count that differs, naming the tensor', () => {
    expect(problem((m) => (m.ioInfo.inputs[0] = { name: 'x', dtype: 'bool', shape: [2, 2] }))).toMatch(
      /input "x" of plan 0 has dtype float32; IO_INFO says bool/,
    );
    expect(problem((m) => (m.ioInfo.inputs[0] = { name: 'x', dtype: 'float32', shape: [4] }))).toMatch(/input "x" of plan 0 has rank 2/);
    expect(problem((m) => (m.ioInfo.outputs[0] = { name: 'y', dtype: 'float32', shape: [2, 3] }))).toMatch(/output "y" of plan 0 has dims/);
    expect(problem((m) => m.ioInfo.inputs.push({ name: 'extra', dtype: 'float32', shape: [1] }))).toMatch(
      /plan 0 has 1 inputs; IO_INFO describes 2/,
    );
  });

  // found by `pnpm fuzz` (om-fixed, onnx-run): a plan output in region none reached the executor,
  // which threw a raw RangeError copying it out
  it('rejects a model input or output without a place', () => {
    expect(
      problem((m) => {
        const plan = m.taskInfo.plans[0];
        if (plan) plan.outputs[0] = { region: 'none', offset: 0, bytes: 0, dtype: 'float32', shape: [2, 2] };
      }),
    ).toMatch(/output "y" of plan 0 has no place in memory/);
  });

  it('lets IO_INFO leave a dim open (-1) that each plan fixes', () => {
    const model = sampleModel();
    model.ioInfo.inputs[0] = { name: 'x', dtype: 'float32', shape: [-1, 2] };
    expect(readOm(writeOm(model)).diagnostics).toEqual([]);
  });
});
