import { describe, expect, it } from 'vitest';
import { type AttrValue, attr, createAttrReader } from '../types/attr.js';
import { windowAttrsProblem } from './window-attrs.js';

const reader = (attrs: Record<string, AttrValue>) => createAttrReader(new Map(Object.entries(attrs)));

describe('windowAttrsProblem', () => {
  const x = [1, 4, 8, 8];
  const conv = (attrs: Record<string, AttrValue>, w = [6, 2, 3, 3]) => windowAttrsProblem('Conv', reader(attrs), { x, inputs: [x, w] });

  it('accepts valid Conv attributes and ignores ops it does not cover', () => {
    expect(conv({ kernel_shape: attr.ints([3, 3]), strides: attr.ints([2, 2]), pads: attr.ints([1, 1, 1, 1]), group: attr.int(2) })).toBe(
      undefined,
    );
    expect(windowAttrsProblem('Relu', reader({ strides: attr.ints([0]) }))).toBe(undefined);
  });

  it('names the attribute that breaks a rule', () => {
    expect(conv({ kernel_shape: attr.ints([3, 4]) }, [6, 4, 3, 3])).toMatch(/kernel_shape \[3,4\] disagrees/);
    expect(conv({ strides: attr.ints([1, 0]) }, [6, 4, 3, 3])).toMatch(/strides/);
    expect(conv({ dilations: attr.ints([1]) }, [6, 4, 3, 3])).toMatch(/dilations \[1\] has 1 values; 2 expected/);
    expect(conv({ pads: attr.ints([0, 0, 0, -1]) }, [6, 4, 3, 3])).toMatch(/pads/);
    expect(conv({ group: attr.int(4) })).toMatch(/group 4/);
    expect(conv({ group: attr.int(0) })).toMatch(/group 0 must be a positive integer/);
    expect(conv({ auto_pad: attr.string('SAME') }, [6, 4, 3, 3])).toMatch(/auto_pad/);
    expect(conv({ strides: attr.int(1) }, [6, 4, 3, 3])).toMatch(/strides has kind int/);
  });

  it('checks QLinearConv weights at input 3 and ConvTranspose weights as [C, M/group, k...]', () => {
    const q = windowAttrsProblem('QLinearConv', reader({ kernel_shape: attr.ints([2, 2]) }), { x, inputs: [x, [], [], [6, 4, 3, 3]] });
    expect(q).toMatch(/kernel_shape/);
    const t = (attrs: Record<string, AttrValue>, w = [4, 3, 3, 3]) =>
      windowAttrsProblem('ConvTranspose', reader(attrs), { x, inputs: [x, w] });
    expect(t({ strides: attr.ints([2, 2]), output_padding: attr.ints([1, 1]) })).toBe(undefined);
    expect(t({ strides: attr.ints([2, 2]), output_padding: attr.ints([2, 0]) })).toMatch(/output_padding/);
    expect(t({}, [5, 3, 3, 3])).toMatch(/4 input channels/);
    expect(t({ output_shape: attr.ints([-1, 9]) })).toMatch(/output_shape/);
  });

  it('requires kernel_shape on pools and pads smaller than it', () => {
    const pool = (attrs: Record<string, AttrValue>) => windowAttrsProblem('MaxPool', reader(attrs), { x, inputs: [x] });
    expect(pool({})).toMatch(/kernel_shape is required/);
    expect(pool({ kernel_shape: attr.ints([2, 2]), pads: attr.ints([1, 1, 1, 1]) })).toBe(undefined);
    expect(pool({ kernel_shape: attr.ints([2, 2]), pads: attr.ints([2, 0, 0, 0]) })).toMatch(/smaller than the kernel_shape/);
    expect(pool({ kernel_shape: attr.ints([2, 2]), ceil_mode: attr.int(7) })).toMatch(/ceil_mode/);
  });

  it('works with unknown shapes (rank from kernel_shape) and checks what it can', () => {
    expect(windowAttrsProblem('AveragePool', reader({ kernel_shape: attr.ints([3]), strides: attr.ints([0]) }))).toMatch(/strides/);
    expect(windowAttrsProblem('Conv', reader({}), { x: [-2], inputs: [[-2], [-2]] })).toBe(undefined);
    expect(
      windowAttrsProblem('Conv', reader({ kernel_shape: attr.ints([3, 3]) }), { x: ['N', 4, 'H', 'W'], inputs: [[], [6, -1, 3, 3]] }),
    ).toBe(undefined);
  });
});
