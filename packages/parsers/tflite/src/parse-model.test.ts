import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTflite, sniffTflite, tfliteIo, tfliteParser } from './index.js';

const coral = path.resolve(process.cwd(), '../shared/testdata/models/tflite/coral');
const read = (f: string) => new Uint8Array(readFileSync(path.join(coral, f)));

describe('parseTflite', () => {
  it('keeps NHWC at the edges and convolutions quantized (no float weights)', async () => {
    const { graph, diagnostics } = await parseTflite({ bytes: read('mobilenet_v1_0.25_128_quant.tflite') });
    expect(diagnostics).toEqual([]);
    if (!graph) throw new Error('no graph');
    const input = graph.inputNodes()[0];
    expect(input?.opDesc.outputDescs[0]?.shape).toEqual([1, 128, 128, 3]);
    expect(input?.opDesc.outputDescs[0]?.dtype).toBe('uint8');
    const types = graph.nodes.map((n) => n.type);
    expect(types.filter((t) => t === 'ConvInteger')).toHaveLength(28);
    expect(types).not.toContain('Conv');
    // one transpose into NCHW at the input, one back before the reshape to logits
    expect(types.filter((t) => t === 'Transpose')).toHaveLength(2);
    // weights stay 8-bit integers and biases int32: no float tensor of weights anywhere
    const constants = graph.nodes.flatMap((n) => {
      const value = n.type === 'Const' ? n.opDesc.attrs.get('value') : undefined;
      return value?.kind === 'tensor' && value.value.dims.length === 4 ? [value.value.type] : [];
    });
    expect(constants.filter((t) => t === 'uint8')).toHaveLength(28);
    expect(constants.every((t) => t === 'uint8' || t === 'int32' || t === 'float32')).toBe(true);
    expect(
      graph.nodes
        .filter((n) => n.type === 'Const')
        .every((n) => {
          const v = n.opDesc.attrs.get('value');
          return v?.kind !== 'tensor' || v.value.type !== 'float32' || v.value.data.length <= 256;
        }),
    ).toBe(true);
  });

  it('imports a quantized model as float only when asked (extra.dequantize)', async () => {
    const { graph } = await parseTflite({ bytes: read('mobilenet_v1_0.25_128_quant.tflite') }, { extra: { dequantize: true } });
    if (!graph) throw new Error('no graph');
    const types = new Set(graph.nodes.map((n) => n.type));
    expect(types.has('Conv')).toBe(true);
    for (const t of ['ConvInteger', 'QuantizeLinear', 'DequantizeLinear']) expect(types.has(t)).toBe(false);
    expect(graph.inputNodes()[0]?.opDesc.outputDescs[0]?.dtype).toBe('float32');
  });

  it('reports an unsupported custom op with its name', async () => {
    const { graph, diagnostics } = await parseTflite({ bytes: read('invalid_model_invoking_error.tflite'), path: 'x.tflite' });
    expect(graph).toBeUndefined();
    expect(diagnostics[0]?.code).toBe('TSGE-E3402');
    expect(diagnostics[0]?.message).toContain('CUSTOM(fake-op-double)');
    expect(diagnostics[0]?.location?.file).toBe('x.tflite');
  });

  it('refuses files that are not TFLite flatbuffers', async () => {
    const result = await parseTflite({ bytes: new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9]) });
    expect(result.diagnostics[0]?.code).toBe('TSGE-E3401');
    expect(sniffTflite(new Uint8Array(16))).toBe(0);
    expect(tfliteParser.sniff(read('split_concat.tflite'), 'a.tflite')).toBe(1);
  });

  it('lists inputs and outputs with their quantization', () => {
    const io = tfliteIo(read('mobilenet_v2_1.0_224_quant.tflite'));
    expect(io.inputs).toEqual([
      { name: 'input', dtype: 'uint8', shape: [1, 224, 224, 3], quantization: { scale: 0.0078125, zeroPoint: 128 } },
    ]);
    expect(io.outputs[0]?.shape).toEqual([1, 1001]);
  });
});
