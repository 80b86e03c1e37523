import { describe, expect, it } from 'vitest';
import { type IGraphDef, tf } from '../internal/proto.js';
import { TfProblem } from '../internal/problem.js';
import { inlineFunctions } from './inline-functions.js';

const call = (name: string, f: string, input: string[], op = 'StatefulPartitionedCall') => ({
  name,
  op,
  input,
  attr: { f: { func: { name: f } } },
});
const fn = (name: string, inputs: string[], outputs: string[], nodeDef: object[], ret: Record<string, string>) => ({
  signature: { name, inputArg: inputs.map((n) => ({ name: n })), outputArg: outputs.map((n) => ({ name: n })) },
  nodeDef,
  ret,
});
const graph = (node: object[], functions: object[]): IGraphDef => tf.GraphDef.fromObject({ node, library: { function: functions } });

function problemOf(g: IGraphDef): TfProblem {
  try {
    inlineFunctions(g);
  } catch (error) {
    if (error instanceof TfProblem) return error;
    throw error;
  }
  throw new Error('no problem raised');
}

describe('FunctionDef inlining', () => {
  it('binds arguments, maps named output arguments to flat indices, and resolves nested calls', () => {
    const inner = fn(
      'inner',
      ['a', 'b'],
      ['first', 'second'],
      [
        { name: 'bn', op: 'FusedBatchNormV3', input: ['a', 'b', 'b', 'b', 'b'] },
        { name: 'parts', op: 'Unpack', input: ['bn:batch_variance:0'] },
        { name: 'out', op: 'Identity', input: ['parts:output:1', '^bn'] },
      ],
      { first: 'out:output:0', second: 'bn:y:0' },
    );
    const outer = fn(
      'outer',
      ['x', 'w'],
      ['y'],
      [
        call('c', 'inner', ['x', 'w'], 'PartitionedCall'),
        // a library function used as an op names its outputs by the function's signature
        { name: 'direct', op: 'inner', input: ['c:output:1', 'w'] },
        { name: 'sum', op: 'AddV2', input: ['c:output:0', 'direct:second:0'] },
      ],
      { y: 'sum:z:0' },
    );
    const g = graph(
      [
        { name: 'x', op: 'Placeholder' },
        { name: 'w', op: 'Const' },
        call('top', 'outer', ['x', 'w']),
        { name: 'use', op: 'Neg', input: ['top'] },
      ],
      [inner, outer],
    );
    const { nodes, resolve } = inlineFunctions(g);
    const byName = new Map(nodes.map((n) => [n.name, n]));
    expect(nodes.some((n) => n.op.endsWith('Call') || n.op === 'inner')).toBe(false);
    expect(byName.get('top/c/bn')?.inputs[0]).toEqual({ node: 'x', index: 0 });
    expect(byName.get('top/c/parts')?.inputs).toEqual([{ node: 'top/c/bn', index: 2 }]);
    expect(byName.get('top/c/out')?.inputs).toEqual([{ node: 'top/c/parts', index: 1 }]);
    expect(byName.get('top/c/out')?.control).toEqual(['top/c/bn']);
    // `direct` reads c's second output (bn:y) and returns its own bn:y as `second`
    expect(byName.get('top/direct/bn')?.inputs[0]).toEqual({ node: 'top/c/bn', index: 0 });
    expect(byName.get('top/sum')?.inputs).toEqual([
      { node: 'top/c/out', index: 0 },
      { node: 'top/direct/bn', index: 0 },
    ]);
    expect(byName.get('use')?.inputs).toEqual([{ node: 'top/sum', index: 0 }]);
    expect(resolve('top:0')).toEqual({ node: 'top/sum', index: 0 });
  });

  it('names the function and node for recursion, arity, unknown references and missing functions', () => {
    const self = fn('self', ['a'], ['b'], [call('again', 'self', ['a'])], { b: 'again:output:0' });
    const cases: [IGraphDef, string][] = [
      [graph([{ name: 'x', op: 'Placeholder' }, call('c', 'self', ['x'])], [self]), 'deeper'],
      [graph([{ name: 'x', op: 'Placeholder' }, call('c', 'self', ['x', 'x'])], [self]), 'passes 2 inputs'],
      [graph([call('c', 'nowhere', [])], []), 'not in the graph library'],
      [
        graph(
          [{ name: 'x', op: 'Placeholder' }, call('c', 'bad', ['x'])],
          [fn('bad', ['a'], ['b'], [{ name: 'n', op: 'Neg', input: ['zz'] }], { b: 'n:y:0' })],
        ),
        'neither an argument nor a node',
      ],
      [
        graph(
          [{ name: 'x', op: 'Placeholder' }, call('c', 'arg', ['x'])],
          [fn('arg', ['a'], ['b'], [{ name: 't', op: 'TopKV2', input: ['a', 'a'] }], { b: 't:nope:0' })],
        ),
        'no output argument nope',
      ],
      [graph([{ name: 'x', op: 'Placeholder' }, call('c', 'noret', ['x'])], [fn('noret', ['a'], ['b'], [], {})]), 'no ret tensor'],
    ];
    for (const [g, reason] of cases) {
      const p = problemOf(g);
      expect(p.code).toBe('TSGE-E3120');
      expect(String(p.args.reason)).toContain(reason);
    }
  });
});
