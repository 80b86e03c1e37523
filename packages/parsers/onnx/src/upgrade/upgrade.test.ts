import { type Graph, type Node, constValueOf, toNumberArray } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { parseOnnx } from '../index.js';
import { DT, a, encodeModel, floatTensor, node, value } from '../testing/build-model.js';
import type { INodeProto } from '../internal/proto.js';

async function parseSingle(
  n: INodeProto,
  opset: number,
  inputs = [value('x', DT.FLOAT, [1, 3, 4, 5])],
  outputs = [value('y')],
): Promise<Graph> {
  const result = await parseOnnx({ bytes: encodeModel({ nodes: [n], inputs, outputs, opset }) });
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return result.graph as Graph;
}

/** The content of a node's input i, when a Const produces it. */
function constInput(n: Node, i: number): number[] | undefined {
  const t = constValueOf(n.inData[i]?.peer?.node);
  return t ? toNumberArray(t) : undefined;
}
const only = (g: Graph, type: string): Node => {
  const list = g.nodesOfType(type);
  expect(list).toHaveLength(1);
  return list[0] as Node;
};

describe('opset upgrade', () => {
  it('moves Unsqueeze/Squeeze/ReduceSum axes into int64 inputs before opset 13', async () => {
    for (const op of ['Unsqueeze', 'Squeeze', 'ReduceSum']) {
      const g = await parseSingle(node(op, ['x'], ['y'], [a.ints('axes', [0, 2])]), 11);
      const n = only(g, op);
      expect(n.opDesc.attrs.has('axes')).toBe(false);
      expect(constInput(n, 1)).toEqual([0, 2]);
      expect(constValueOf(n.inData[1]?.peer?.node)?.type).toBe('int64');
    }
    // at opset 13 ReduceMean still has the attribute form, upgraded before 18
    const mean = only(await parseSingle(node('ReduceMean', ['x'], ['y'], [a.ints('axes', [1])]), 13), 'ReduceMean');
    expect(constInput(mean, 1)).toEqual([1]);
    // canonical models are left alone
    const modern = only(await parseSingle(node('ReduceMean', ['x'], ['y'], [a.int('keepdims', 0)]), 18), 'ReduceMean');
    expect(modern.inData).toHaveLength(1);
  });

  it('turns Slice-1 attributes into starts/ends/axes inputs', async () => {
    const n = only(
      await parseSingle(node('Slice', ['x'], ['y'], [a.ints('starts', [1]), a.ints('ends', [3]), a.ints('axes', [2])]), 9),
      'Slice',
    );
    expect([constInput(n, 1), constInput(n, 2), constInput(n, 3)]).toEqual([[1], [3], [2]]);
  });

  it('turns Pad-2 pads/value into inputs with the value cast like the data', async () => {
    const n = only(
      await parseSingle(
        node('Pad', ['x'], ['y'], [a.ints('pads', [0, 0, 1, 1, 0, 0, 1, 1]), a.float('value', 2.5), a.string('mode', 'constant')]),
        2,
      ),
      'Pad',
    );
    expect(constInput(n, 1)).toEqual([0, 0, 1, 1, 0, 0, 1, 1]);
    const cast = n.inData[2]?.peer?.node as Node;
    expect(cast.type).toBe('CastLike');
    expect(constInput(cast, 0)).toEqual([2.5]);
    expect(n.opDesc.attrs.get('mode')).toEqual({ kind: 'string', value: 'constant' });
  });

  it('turns Clip-6 min/max into inputs', async () => {
    const n = only(await parseSingle(node('Clip', ['x'], ['y'], [a.float('max', 6)]), 6), 'Clip');
    expect(n.inData[1]?.peer).toBeUndefined();
    expect(constInput(n.inData[2]?.peer?.node as Node, 0)).toEqual([6]);
  });

  it('rewrites Upsample into Resize with asymmetric coordinates', async () => {
    const g = await parseSingle(node('Upsample', ['x'], ['y'], [a.floats('scales', [1, 1, 2, 2]), a.string('mode', 'nearest')]), 7);
    const n = only(g, 'Resize');
    expect(n.inData[1]?.peer).toBeUndefined();
    expect(constInput(n, 2)).toEqual([1, 1, 2, 2]);
    expect(n.opDesc.attrs.get('coordinate_transformation_mode')).toEqual({ kind: 'string', value: 'asymmetric' });
    expect(g.nodesOfType('Upsample')).toHaveLength(0);
  });

  it('renames Scatter to ScatterElements and fills TopK k and Dropout ratio', async () => {
    const inputs = [value('x', DT.FLOAT, [2, 2]), value('i', DT.INT64, [1, 1]), value('u', DT.FLOAT, [1, 1])];
    expect(only(await parseSingle(node('Scatter', ['x', 'i', 'u'], ['y']), 9, inputs), 'ScatterElements').inData).toHaveLength(3);
    const topk = only(await parseSingle(node('TopK', ['x'], ['y', 'z'], [a.int('k', 2)]), 1, undefined, [value('y'), value('z')]), 'TopK');
    expect(constInput(topk, 1)).toEqual([2]);
    const dropout = only(await parseSingle(node('Dropout', ['x'], ['y'], [a.float('ratio', 0.25), a.int('is_test', 1)]), 6), 'Dropout');
    expect(constInput(dropout, 1)).toEqual([0.25]);
    expect(dropout.opDesc.attrs.has('is_test')).toBe(false);
  });

  it('expresses old Softmax 2-D coercion with Flatten/Softmax/Reshape unless the axis is the last', async () => {
    const g = await parseSingle(node('Softmax', ['x'], ['y'], [a.int('axis', 1)]), 11);
    expect(g.nodesOfType('Flatten')).toHaveLength(1);
    expect(only(g, 'Softmax').opDesc.attrs.get('axis')).toEqual({ kind: 'int', value: -1 });
    expect(only(g, 'Reshape').opDesc.outputNames).toEqual(['y']);
    const last = await parseSingle(node('Softmax', ['x'], ['y'], [a.int('axis', 3)]), 11);
    expect(last.nodesOfType('Flatten')).toHaveLength(0);
  });

  it('aligns legacy broadcast with axis and per-channel PRelu slopes', async () => {
    const inputs = [value('x', DT.FLOAT, [2, 3, 4, 5]), value('b', DT.FLOAT, [3])];
    const g = await parseSingle(node('Add', ['x', 'b'], ['y'], [a.int('broadcast', 1), a.int('axis', 1)]), 6, inputs);
    const add = only(g, 'Add');
    const unsqueeze = add.inData[1]?.peer?.node as Node;
    expect(unsqueeze.type).toBe('Unsqueeze');
    expect(constInput(unsqueeze, 1)).toEqual([1, 2]);
    const prelu = await parseOnnx({
      bytes: encodeModel({
        nodes: [node('PRelu', ['x', 's'], ['y'])],
        inputs: [value('x', DT.FLOAT, [2, 3, 4, 5])],
        outputs: [value('y')],
        initializers: [floatTensor('s', [3], [0.1, 0.2, 0.3])],
        opset: 6,
      }),
    });
    const slope = only(prelu.graph as Graph, 'PRelu').inData[1]?.peer?.node as Node;
    expect(slope.type).toBe('Unsqueeze');
    expect(constInput(slope, 1)).toEqual([1, 2]);
  });

  it('drops consumed_inputs of opset < 6 nodes', async () => {
    const n = only(await parseSingle(node('Relu', ['x'], ['y'], [a.ints('consumed_inputs', [0])]), 1), 'Relu');
    expect(n.opDesc.attrs.has('consumed_inputs')).toBe(false);
  });

  it('expresses removed experimental ops (ImageScaler, Crop, DynamicSlice) with canonical ops', async () => {
    const scaler = await parseSingle(node('ImageScaler', ['x'], ['y'], [a.float('scale', 2), a.floats('bias', [1, 2, 3])]), 8);
    expect(scaler.nodesOfType('ImageScaler')).toHaveLength(0);
    const add = only(scaler, 'Add');
    expect(add.opDesc.outputNames).toEqual(['y']);
    expect(add.inData[0]?.peer?.node.type).toBe('Mul');
    const crop = only(await parseSingle(node('Crop', ['x'], ['y'], [a.ints('border', [1, 1, 1, 1])]), 8), 'Slice');
    expect([constInput(crop, 1), constInput(crop, 2), constInput(crop, 3)]).toEqual([
      [1, 1],
      [-1, -1],
      [2, 3],
    ]);
    const inputs = [value('x', DT.FLOAT, [4]), value('s', DT.INT64, [1]), value('e', DT.INT64, [1])];
    expect(only(await parseSingle(node('DynamicSlice', ['x', 's', 'e'], ['y']), 9, inputs), 'Slice').inData).toHaveLength(3);
  });
});
