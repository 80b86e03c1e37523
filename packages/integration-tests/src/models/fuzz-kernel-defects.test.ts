// The four kernel defects the onnx-run fuzz campaign found (issue 11), each as its minimal
// reproducer on the real seed model it came from. Each is refused with a coded error naming the
// node: at shape inference when the shapes and dtypes are known when compiling, by the same rule
// in the kernel when they arrive only with the feeds.
import path from 'node:path';
import { compileModel, loadModel, parseModel } from '@tsge/ge';
import { type DataType, type Graph, type HostTensor, type Node, TsgeError, createTensor, createTensorDesc } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';

const node = (test: string): string => path.resolve(process.cwd(), '../shared/testdata/onnx-backend/node', test, 'model.onnx');

function inputNode(graph: Graph, name: string): Node {
  const found = graph.inputNodes().find((n) => n.name === name);
  if (!found) throw new Error(`no input ${name}`);
  return found;
}

/** Declares graph input `name` with another dtype or shape, as the fuzzer's mutant did. */
function redeclare(graph: Graph, name: string, dtype: DataType | undefined, shape: (number | string)[] | undefined): void {
  const desc = inputNode(graph, name).opDesc.outputDescs[0];
  if (!desc) throw new Error(`input ${name} has no desc`);
  const data = inputNode(graph, name);
  const next = () => createTensorDesc(dtype ?? desc.dtype, shape ?? desc.shape);
  data.opDesc.outputDescs[0] = next();
  if (data.opDesc.inputDescs[0]) data.opDesc.inputDescs[0] = next();
  for (const peer of data.outData[0]?.peers ?? []) peer.node.opDesc.inputDescs[peer.index] = next();
}

async function failure(work: Promise<unknown>): Promise<TsgeError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(TsgeError.isInstance(error)).toBe(true);
  // a coded error, not a wrapped TypeError/RangeError from a kernel
  const cause = (error as TsgeError).cause;
  expect(cause === undefined || TsgeError.isInstance(cause)).toBe(true);
  return error as TsgeError;
}

const filled = (dtype: DataType, dims: number[]): HostTensor => {
  const t = createTensor(dtype, dims);
  (t.data as Float32Array).fill(0.5);
  return t;
};

describe('defects found by pnpm fuzz --campaign onnx-run', () => {
  it('Attention: K and V of different sequence lengths fail to compile, naming the node (seed 1, case 793)', async () => {
    const graph = await parseModel(node('test_attention_4d_diff_heads_with_past_and_present_mask3d'));
    redeclare(graph, 'V', undefined, [2, 3, 7, 10]); // K is [2, 3, 6, 8]
    const error = await failure(compileModel(graph));
    expect(error.code).toBe('TSGE-E4001');
    expect(error.message).toMatch(/Attention_0.*K has sequence length 6 but V has 7/);
  });

  it('Attention: the same disagreement arriving with the feeds is refused by the kernel before any copy', async () => {
    const graph = await parseModel(node('test_attention_4d_diff_heads_with_past_and_present_mask3d'));
    redeclare(graph, 'K', undefined, [2, 3, 'kv', 8]);
    redeclare(graph, 'V', undefined, [2, 3, 'kv2', 10]);
    const model = await loadModel((await compileModel(graph)).om, { threads: 1 });
    try {
      const feeds = {
        Q: filled('float32', [2, 3, 4, 8]),
        K: filled('float32', [2, 3, 6, 8]),
        V: filled('float32', [2, 3, 4096, 10]),
        attn_mask: filled('float32', [2, 1, 4, 18]),
        past_key: filled('float32', [2, 3, 12, 8]),
        past_value: filled('float32', [2, 3, 12, 10]),
      };
      const error = await failure(model.run(feeds));
      expect(error.message).toMatch(/Attention_0.*K has sequence length 6 but V has 4096/);
    } finally {
      await model.release();
    }
  });

  it('Concat: an int64 and a float32 input fail to compile, naming the node (seed 1, case 7834)', async () => {
    const graph = await parseModel(node('test_layer_normalization_4d_axis_negative_2_expanded_ver18'));
    // the mutant renamed ConstantOfShape's `value`: the default is a float32 zero, concatenated with an int64 shape
    const fill = graph.nodesOfType('ConstantOfShape')[0] as Node;
    fill.opDesc.attrs.delete('value');
    const error = await failure(compileModel(graph));
    expect(error.code).toBe('TSGE-E4001');
    expect(error.message).toMatch(/Concat_9: inputs 0 and 1 are both of type T but are int64 and float32/);
  });

  it('LinearAttention: an int64 query with float32 keys fails to compile, naming the node (seed 1, case 9801)', async () => {
    const graph = await parseModel(node('test_linear_attention_gated_delta_gqa'));
    redeclare(graph, 'query', 'int64', undefined);
    const error = await failure(compileModel(graph));
    expect(error.code).toBe('TSGE-E4001');
    expect(error.message).toMatch(/LinearAttention_0: inputs 0 and 1 are both of type T but are int64 and float32/);
  });

  it('Resize: negative or fractional run-time sizes are refused before the taps are computed (seed 1, case 490)', async () => {
    const model = await loadModel((await compileModel(await parseModel(node('test_resize_tf_crop_and_resize_axes_2_3')))).om, {
      threads: 1,
    });
    try {
      const X = filled('float32', [1, 1, 4, 4]);
      const roi: HostTensor = { type: 'float32', dims: [4], data: Float32Array.from([0, 0, 1, 1]) };
      const sizes: HostTensor = { type: 'int64', dims: [2], data: BigInt64Array.from([-1n, 3n]) };
      const error = await failure(model.run({ X, roi, sizes }));
      // the op's run-time inference refuses them before the kernel is called
      expect(error.code).toBe('TSGE-E4001');
      expect(error.message).toMatch(/Resize_0.*sizes \[-1, 3\] must be non-negative integers/);
      // the model stays usable: valid sizes run
      const y = (await model.run({ X, roi, sizes: { ...sizes, data: BigInt64Array.from([3n, 3n]) } })).Y as HostTensor;
      expect(y.dims).toEqual([1, 1, 3, 3]);
    } finally {
      await model.release();
    }
  });
});
