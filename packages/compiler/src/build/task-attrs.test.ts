import { GraphBuilder, attr, createTensor } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { taskAttrs } from './task-attrs.js';

describe('task attributes', () => {
  it('carries plain attributes with float32 values and the opset, and nothing else', () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', 'float32', [2, 3]);
    const y = b.op('LeakyRelu', [x], { attrs: { alpha: attr.float(0.1), _opset: attr.int(16) } });
    const z = b.op('Transpose', [y], { attrs: { perm: attr.ints([1, 0]) } });
    const w = b.op('ConstantOfShape', [z], { attrs: { value: attr.tensor(createTensor('float32', [1], new Float32Array([1]))) } });
    const v = b.op('Clip', [w], { attrs: { min: attr.float(Number.NEGATIVE_INFINITY) } });
    b.output(v, 'y');
    const graph = b.build();
    const of = (type: string) => taskAttrs(graph.nodesOfType(type)[0] as never);
    expect(of('LeakyRelu')).toEqual({
      attrs: { alpha: { kind: 'float', value: Math.fround(0.1) }, _opset: { kind: 'int', value: 16 } },
      opset: 16,
    });
    expect(of('Transpose')?.attrs).toEqual({ perm: { kind: 'ints', value: [1, 0] } });
    // a tensor attribute or a non-finite float keeps the task on its node in MODEL_DEF
    expect(of('ConstantOfShape')).toBeUndefined();
    expect(of('Clip')).toBeUndefined();
  });
});
