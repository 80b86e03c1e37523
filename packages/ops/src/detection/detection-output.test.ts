// tsge::DetectionOutput inference: [1, 1, D, 7] with D a fresh symbol; inputs that do not fit
// num_classes and the priors, and bad attributes, are InferenceErrors naming the node.
import { type AttrMap, InferenceError, type ValueInfo, attr } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { inferOnValues } from '../common/tensor-harness.js';
import { detectionOutputDefinition } from './detection-output.js';

const f32 = (...shape: (number | string)[]): ValueInfo => ({ dtype: 'float32', shape });
const attrs = (extra: Record<string, ReturnType<typeof attr.int>> = {}): AttrMap =>
  new Map(Object.entries({ num_classes: attr.int(3), ...extra }));
const infer = (inputs: ValueInfo[], a = attrs()) => inferOnValues(detectionOutputDefinition, inputs, { attrs: a, outputCount: 1 });

describe('tsge::DetectionOutput inference', () => {
  it('gives [1, 1, D, 7] with a data-dependent D, for static and symbolic inputs', () => {
    const [out] = infer([f32(2, 40), f32(2, 30), f32(1, 2, 40)]);
    expect(out?.dtype).toBe('float32');
    expect(out?.shape.length).toBe(4);
    expect([out?.shape[0], out?.shape[1], out?.shape[3]]).toEqual([1, 1, 7]);
    expect(typeof out?.shape[2]).toBe('string');
    expect(infer([f32('n', 40), f32('n', 30), f32(1, 2, 40)])[0]?.shape[3]).toBe(7);
    // per-class locations: 10 priors × 3 classes × 4; variances in the target: boxes alone
    expect(() => infer([f32(1, 120), f32(1, 30), f32(1, 2, 40)], attrs({ share_location: attr.int(0) }))).not.toThrow();
    expect(() => infer([f32(1, 40), f32(1, 30), f32(1, 1, 40)], attrs({ variance_encoded_in_target: attr.int(1) }))).not.toThrow();
  });
  it.each([
    [[f32(1, 44), f32(1, 30), f32(1, 2, 40)], attrs(), /loc \[1,44\] does not hold 10 priors/],
    [[f32(1, 40), f32(1, 33), f32(1, 2, 40)], attrs(), /conf \[1,33\]/],
    [[f32(1, 40), f32(1, 30), f32(1, 1, 40)], attrs(), /priors \[1,1,40\] must be \[1 or N, 2, 4·P\]/],
    [[f32(2, 40), f32(1, 30), f32(1, 2, 40)], attrs(), /conf has 1 images, loc 2/],
    [[f32(1, 40), f32(1, 30), f32(1, 2, 40)], attrs({ num_classes: attr.int(0) }), /num_classes 0/],
    [[f32(1, 40), f32(1, 30), f32(1, 2, 40)], attrs({ code_type: attr.string('CENTRE') }), /code_type "CENTRE"/],
    [[f32(1, 40), f32(1, 30), f32(1, 2, 40)], attrs({ top_k: attr.int(-3) }), /top_k -3/],
  ])('refuses %#', (inputs, a, message) => {
    let error: unknown;
    try {
      infer(inputs, a);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InferenceError);
    expect(String((error as Error).message)).toMatch(/DetectionOutput node/);
    expect(String((error as Error).message)).toMatch(message);
  });
});
