// Window-op attributes that disagree with the weights or leave their range are rejected where the
// fact is known: at shape inference when compiling (naming the node), and by the .om reader for a
// compiled file whose TASK_INFO (or MODEL_DEF) was edited and its checksum fixed (issue 11, items 1-3).
import path from 'node:path';
import { compileModel, loadModel, parseModel } from '@tsge/ge';
import { type Graph, type Node, TsgeError, attr } from '@tsge/metadef';
import { type OmModel, type PlainAttr, readOm, writeOm } from '@tsge/om';
import { describe, expect, it } from 'vitest';

const testdata = path.resolve(process.cwd(), '../shared/testdata');
const mnist = path.join(testdata, 'models/onnx/mnist.onnx');
const squeezenet = path.join(testdata, 'onnx-backend/light/light_squeezenet.onnx');

function nodeNamed(graph: Graph, name: string): Node {
  const node = graph.nodes.find((n) => n.name === name);
  if (!node) throw new Error(`no node ${name}`);
  return node;
}

async function compileError(graph: Graph): Promise<TsgeError> {
  const error = await compileModel(graph).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(TsgeError.isInstance(error)).toBe(true);
  return error as TsgeError;
}

describe('Conv and pool attributes at shape inference', () => {
  for (const kernel of [
    [5, 65535],
    [5, -1],
    [5, 2 ** 31],
    [5, 2 ** 32],
  ]) {
    it(`mnist Convolution28 with kernel_shape [${kernel}] fails to compile, naming the node`, async () => {
      const graph = await parseModel(mnist);
      nodeNamed(graph, 'Convolution28').opDesc.attrs.set('kernel_shape', attr.ints(kernel));
      const error = await compileError(graph);
      expect(error.code).toBe('TSGE-E4001');
      expect(error.message).toContain('Convolution28');
      expect(error.message).toContain('kernel_shape');
    });
  }

  it('a squeezenet Conv with kernel_shape [3,-1] fails to compile', async () => {
    const graph = await parseModel(squeezenet);
    const conv = graph.nodes.find((n) => {
      const k = n.opDesc.attrs.get('kernel_shape');
      return n.type === 'Conv' && k?.kind === 'ints' && k.value[0] === 3;
    }) as Node;
    conv.opDesc.attrs.set('kernel_shape', attr.ints([3, -1]));
    const error = await compileError(graph);
    expect(error.code).toBe('TSGE-E4001');
    expect(error.message).toContain(conv.name);
  });

  for (const [name, value, words] of [
    ['strides', attr.ints([0, 1]), 'strides'],
    ['dilations', attr.ints([1, -2]), 'dilations'],
    ['pads', attr.ints([0, 0, -1, 0]), 'pads'],
    ['group', attr.int(3), 'group'],
    ['strides', attr.ints([1, 1, 1]), '3 values'],
  ] as const) {
    it(`mnist Convolution28 with ${name} ${JSON.stringify(value.value)} fails to compile`, async () => {
      const graph = await parseModel(mnist);
      const conv = nodeNamed(graph, 'Convolution28');
      conv.opDesc.attrs.set('auto_pad', attr.string('NOTSET'));
      conv.opDesc.attrs.set(name, value);
      const error = await compileError(graph);
      expect(error.message).toContain('Convolution28');
      expect(error.message).toContain(words);
    });
  }

  it('mnist Pooling66 with a zero stride or a pad as large as the kernel fails to compile', async () => {
    for (const [name, value] of [
      ['strides', [2, 0]],
      ['pads', [0, 0, 2, 0]],
      ['kernel_shape', [2, 0]],
    ] as const) {
      const graph = await parseModel(mnist);
      nodeNamed(graph, 'Pooling66').opDesc.attrs.set(name, attr.ints(value));
      const error = await compileError(graph);
      expect(error.code).toBe('TSGE-E4001');
      expect(error.message).toMatch(new RegExp(`Pooling66.*${name}`));
    }
  });
});

/** mnist compiled, with one kernel task edited; writeOm recomputes the checksum. */
async function editedMnist(edit: (model: OmModel) => void): Promise<Uint8Array> {
  const { om } = await compileModel(await parseModel(mnist));
  const model = readOm(om).model as OmModel;
  edit(model);
  return writeOm({
    modelName: model.header.modelName,
    target: model.header.target,
    flags: model.header.flags,
    graph: model.graph,
    weights: model.weights,
    kernels: model.kernels,
    ioInfo: model.ioInfo,
    taskInfo: model.taskInfo,
  });
}
type KernelTask = Extract<OmModel['taskInfo']['plans'][number]['streams'][number]['tasks'][number], { kind: 'kernel' }>;
function taskOf(model: OmModel, opType: string): KernelTask {
  for (const plan of model.taskInfo.plans)
    for (const stream of plan.streams) for (const task of stream.tasks) if (task.kind === 'kernel' && task.opType === opType) return task;
  throw new Error(`no ${opType} task`);
}

describe('the .om reader checks task attributes with the same rules', () => {
  const cases: [string, string, PlainAttr][] = [
    ['FusedConv', 'kernel_shape', { kind: 'ints', value: [5, 2 ** 32] }],
    ['FusedConv', 'group', { kind: 'int', value: 2 ** 32 }],
    ['FusedConv', 'strides', { kind: 'ints', value: [0, 1] }],
    ['MaxPool', 'pads', { kind: 'ints', value: [0, 0, -1, -1] }],
    ['MaxPool', 'strides', { kind: 'ints', value: [0, 2] }],
    ['MaxPool', 'kernel_shape', { kind: 'ints', value: [-2, 2] }],
  ];
  for (const [opType, name, value] of cases) {
    it(`${opType} ${name} ${JSON.stringify(value.value)} in TASK_INFO is rejected at load`, async () => {
      const bytes = await editedMnist((model) => {
        (taskOf(model, opType).attrs as Record<string, PlainAttr>)[name] = value;
      });
      const { model, diagnostics } = readOm(bytes);
      expect(model).toBeUndefined();
      expect(diagnostics[0]?.code).toBe('TSGE-E2006');
      expect(diagnostics[0]?.message).toContain(name);
      const error = await loadModel(bytes).then(
        () => undefined,
        (e: unknown) => e as TsgeError,
      );
      expect(error?.code).toBe('TSGE-E2006');
    });
  }

  it('a task that takes its attributes from MODEL_DEF is checked against that node', async () => {
    const bytes = await editedMnist((model) => {
      const task = taskOf(model, 'MaxPool');
      delete task.attrs;
      nodeNamed(model.graph, task.node).opDesc.attrs.set('strides', attr.ints([0, 2]));
    });
    const { model, diagnostics } = readOm(bytes);
    expect(model).toBeUndefined();
    expect(diagnostics[0]?.message).toMatch(/Pooling66.*strides/);
  });

  it('attribute kinds that name Object.prototype members are refused, not looked up', async () => {
    for (const kind of ['__proto__', 'hasOwnProperty', 'constructor', 'toString', 'valueOf']) {
      const bytes = await editedMnist((model) => {
        (taskOf(model, 'MaxPool').attrs as Record<string, unknown>).strides = { kind, value: [2, 2] };
      });
      const { model, diagnostics } = readOm(bytes);
      expect(model).toBeUndefined();
      expect(diagnostics[0]?.code).toBe('TSGE-E2006');
      expect(diagnostics[0]?.message).toContain('which a task cannot carry');
    }
  });
});
