import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type Graph, GraphBuilder, attr, createTensorDesc, serializeAir } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { mind_ir } from './generated/mind-ir.js';
import { isEncryptedMindir, mindsporeParser, parseMindir, parseMindsporeAir } from './index.js';

const dir = path.resolve(process.cwd(), '../shared/testdata/models/mindspore');
const read = (f: string) => new Uint8Array(readFileSync(path.join(dir, f)));
const types = (g: Graph | undefined) => g?.nodes.filter((n) => n.opDesc.type !== 'Const').map((n) => n.opDesc.type);
const codes = (r: { diagnostics: readonly { code: string }[] }) => r.diagnostics.map((d) => d.code);

describe('MindIR', () => {
  it('reads the 1.x and 2.x files into canonical ops with named inputs and parameters', async () => {
    const relu = await parseMindir({ bytes: read('relu.mindir') });
    expect(types(relu.graph)).toEqual(['Data', 'Relu', 'NetOutput']);
    expect(relu.graph?.inputNodes()[0]?.opDesc.outputDescs[0]?.shape).toEqual([1, 1, 2, 2]);
    const lenet = await parseMindir({ bytes: read('ori_net.mindir') });
    expect(codes(lenet)).toEqual([]);
    expect(types(lenet.graph)).toEqual([
      'Data',
      'Conv',
      'Relu',
      'MaxPool',
      'Conv',
      'Relu',
      'MaxPool',
      'Reshape',
      'MatMul',
      'Relu',
      'MatMul',
      'Relu',
      'MatMul',
      'NetOutput',
    ]);
    const weight = lenet.graph?.findNode('conv1.weight')?.opDesc.attrs.get('value');
    expect(weight?.kind === 'tensor' && weight.value.dims).toEqual([6, 1, 5, 5]);
    const lstm = await parseMindir({ bytes: read('old_version_mindir_2.mindir') });
    expect(codes(lstm)).toEqual([]);
    expect(types(lstm.graph)).toContain('LSTM');
    expect(lstm.graph?.inputNodes().map((n) => n.name)).toEqual(['inputs', 'h', 'c']);
  });

  it('refuses the encrypted file with TSGE-E3302 and says it is encrypted', async () => {
    const bytes = read('add_encrpty_key_0123456789ABCDEF.mindir');
    expect(isEncryptedMindir(bytes)).toBe(true);
    const result = await mindsporeParser.parse({ bytes, path: 'add.mindir' });
    expect(result.graph).toBeUndefined();
    expect(codes(result)).toEqual(['TSGE-E3302']);
    expect(result.diagnostics[0]?.message).toMatch(/encrypted/);
  });

  it('reports unknown primitives, undefined inputs and bad tensors with codes', async () => {
    const model = (node: mind_ir.INodeProto, parameter: mind_ir.ITensorProto[] = []) =>
      mind_ir.ModelProto.encode({
        producer_name: 'MindSpore',
        graph: {
          name: 'g',
          input: [{ name: 'g:x', tensor: [{ dims: [2], data_type: 1 }] }],
          parameter,
          node: [node],
          output: [{ name: 'y' }],
        },
      }).finish();
    expect(codes(await parseMindir({ bytes: model({ op_type: 'Warp', name: 'n', input: ['g:x'], output: ['y'] }) }))).toEqual([
      'TSGE-E3303',
    ]);
    expect(codes(await parseMindir({ bytes: model({ op_type: 'ReLU', name: 'n', input: ['g:nothing'], output: ['y'] }) }))).toEqual([
      'TSGE-E3307',
    ]);
    const badParam = [{ name: 'g:w', dims: [3], data_type: 1, raw_data: new Uint8Array(5) }];
    expect(
      codes(await parseMindir({ bytes: model({ op_type: 'Add', name: 'n', input: ['g:x', 'g:w'], output: ['y'] }, badParam) })),
    ).toEqual(['TSGE-E3305']);
    const external = [{ name: 'g:w', dims: [2], data_type: 1, external_data: { location: 'w.bin', offset: 0, length: 8 } }];
    const files = { 'w.bin': Float32Array.of(1.5, -2).buffer };
    const withFile = await parseMindir({
      bytes: model({ op_type: 'Add', name: 'n', input: ['g:x', 'g:w'], output: ['y'] }, external),
      readRelative: async (p) => new Uint8Array(files[p as 'w.bin']),
    });
    expect(codes(withFile)).toEqual([]);
    const w = withFile.graph?.findNode('w')?.opDesc.attrs.get('value');
    expect(w?.kind === 'tensor' && Array.from(w.value.data as Float32Array)).toEqual([1.5, -2]);
    expect(codes(await parseMindir({ bytes: read('relu.mindir').subarray(0, 100) }))).toEqual(['TSGE-E3301']);
  });

  it('refuses control flow (Switch/Partial primitives, calls of function graphs) with TSGE-E3311 naming it', async () => {
    const model = (node: mind_ir.INodeProto) =>
      mind_ir.ModelProto.encode({
        producer_name: 'MindSpore',
        graph: { name: 'g', input: [{ name: 'g:x', tensor: [{ dims: [2], data_type: 1 }] }], node: [node], output: [{ name: 'y' }] },
        functions: [{ name: 'g_true_branch' }],
      }).finish();
    const cases: [mind_ir.INodeProto, string][] = [
      [{ op_type: 'Switch', name: 'n', input: ['g:x'], output: ['y'] }, 'primitive Switch'],
      [{ op_type: 'Partial', name: 'n', input: ['g:x'], output: ['y'] }, 'primitive Partial'],
      [{ op_type: 'REF::g_true_branch', name: 'n', input: ['g:x'], output: ['y'] }, 'function graph g_true_branch'],
      [{ op_type: 'ReLU', name: 'n', input: ['g_true_branch'], output: ['y'] }, 'function graph g_true_branch as an input'],
    ];
    for (const [node, named] of cases) {
      const result = await parseMindir({ bytes: model(node) });
      expect(codes(result)).toEqual(['TSGE-E3311']);
      expect(result.diagnostics[0]?.message).toContain(named);
      expect(result.diagnostics[0]?.message).toContain('control flow');
    }
  });

  it('sniffs MindIR files and is framework 1', () => {
    expect(mindsporeParser.framework).toBe(1);
    expect(mindsporeParser.sniff(read('relu.mindir'))).toBeGreaterThan(0.5);
    expect(mindsporeParser.sniff(read('add_encrpty_key_0123456789ABCDEF.mindir'))).toBeGreaterThan(0);
    expect(mindsporeParser.sniff(new TextEncoder().encode('name: "x"'))).toBe(0);
  });
});

/** A GE graph as MindSpore writes it for Ascend: GE op types and attribute names. */
function geStyleAir(): Uint8Array {
  const b = new GraphBuilder('ge');
  const x = b.input('x', 'float32', [1, 2, 3, 3]);
  const w = b.constant('w', Float32Array.of(1, 2, -1, 0.5), [2, 2, 1, 1]);
  const bias = b.constant('b', Float32Array.of(0.25, -3), [2]);
  const desc = (shape: number[]) => ({ outputDescs: [createTensorDesc('float32', shape)] });
  const conv = b.op('Conv2D', [x, w], {
    attrs: {
      strides: attr.ints([1, 1, 1, 1]),
      pads: attr.ints([0, 0, 0, 0]),
      dilations: attr.ints([1, 1, 1, 1]),
      groups: attr.int(1),
      data_format: attr.string('NCHW'),
    },
    ...desc([1, 2, 3, 3]),
  });
  const biased = b.op('BiasAdd', [conv, bias], { attrs: { data_format: attr.string('NCHW') }, ...desc([1, 2, 3, 3]) });
  const relu = b.op('Relu', [biased], desc([1, 2, 3, 3]));
  const same = b.op('TransData', [relu], {
    attrs: { src_format: attr.string('NCHW'), dst_format: attr.string('NCHW') },
    ...desc([1, 2, 3, 3]),
  });
  const flat = b.op('Reshape', [same, b.constant('shape', BigInt64Array.of(1n, 18n), [2])], desc([1, 18]));
  const w2 = b.constant(
    'w2',
    Float32Array.from({ length: 72 }, (_, i) => ((i % 7) - 3) / 4),
    [4, 18],
  );
  const fc = b.op('MatMulV2', [flat, w2], { attrs: { transpose_x1: attr.bool(false), transpose_x2: attr.bool(true) }, ...desc([1, 4]) });
  b.output(b.op('SoftmaxV2', [fc], { attrs: { axes: attr.ints([-1]) }, ...desc([1, 4]) }), 'y');
  return serializeAir(b.build());
}

describe('.air as MindSpore exports it', () => {
  it('maps GE op types into the canonical set', async () => {
    const result = await parseMindsporeAir({ bytes: geStyleAir(), path: 'net.air' });
    expect(codes(result)).toEqual([]);
    // the bias Reshape is inserted last
    expect(types(result.graph)).toEqual(['Data', 'Conv', 'Add', 'Relu', 'Identity', 'Reshape', 'Gemm', 'Softmax', 'NetOutput', 'Reshape']);
    const gemm = result.graph?.nodes.find((n) => n.opDesc.type === 'Gemm');
    expect(gemm?.opDesc.attrs.get('transB')).toEqual(attr.int(1));
  });

  it('names a GE op it cannot map', async () => {
    const b = new GraphBuilder('ge');
    const x = b.input('x', 'float32', [4]);
    b.output(b.op('TransData', [x], { attrs: { src_format: attr.string('NCHW'), dst_format: attr.string('NC1HWC0') } }), 'y');
    const result = await mindsporeParser.parse({ bytes: serializeAir(b.build()), path: 'bad.air' });
    expect(codes(result)).toEqual(['TSGE-E3310']);
    expect(result.diagnostics[0]?.message).toMatch(/NC1HWC0/);
  });
});
