// The quantized MobileNetV2's integer convolution weights and plans as the compiler records them in
// the .om: the GEMM convolutions carry packed int16 weights and every integer convolution a plan;
// the model gives the bytes it gives with packing switched off, and a packed weight or plan that
// does not fit its node is a coded error (the executor's TSGE-E6007 caused by the kernel's code).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { compileModel, loadModel } from '@tsge/ge';
import type { HostTensor } from '@tsge/metadef';
import { readOm, writeOm } from '@tsge/om';
import { tfliteParser } from '@tsge/parser-tflite';
import { describe, expect, it } from 'vitest';
import { seededInput } from './tflite.fixture.js';

const file = path.resolve(process.cwd(), '../shared/testdata/models/tflite/coral/mobilenet_v2_1.0_224_quant.tflite');

type OmModel = NonNullable<ReturnType<typeof readOm>['model']>;
type Attrs = Record<string, { kind: string; value: unknown }>;

function requantizedTasks(om: Uint8Array): { model: OmModel; attrs: Attrs[] } {
  const model = readOm(om).model as OmModel;
  const attrs: Attrs[] = [];
  for (const plan of model.taskInfo.plans)
    for (const stream of plan.streams)
      for (const task of stream.tasks)
        if (task.kind === 'kernel' && task.opType === 'RequantizedConv' && task.attrs) attrs.push(task.attrs as Attrs);
  return { model, attrs };
}

async function compileMobileNet(options: Parameters<typeof compileModel>[1] = {}): Promise<Uint8Array> {
  const { graph } = await tfliteParser.parse({ bytes: new Uint8Array(await readFile(file)), path: file }, {});
  if (!graph) throw new Error('no graph');
  return (await compileModel(graph, { threads: 2, ...options })).om;
}

async function runOnce(om: Uint8Array, input: HostTensor): Promise<HostTensor> {
  const model = await loadModel(om, { threads: 2 });
  try {
    const name = model.inputMetadata[0]?.name as string;
    return Object.values(await model.run({ [name]: input }))[0] as HostTensor;
  } finally {
    await model.release();
  }
}

describe('packed integer weights and integer plans in the .om', () => {
  it('the GEMM convolutions carry packed weights, every integer convolution a plan, and the bytes equal the unpacked model', async () => {
    const om = await compileMobileNet();
    const { attrs } = requantizedTasks(om);
    expect(attrs.length).toBe(53);
    // 17 depthwise and the logits layer (one output position) read their bytes as stored
    expect(attrs.filter((a) => a.packed_weight).length).toBe(35);
    expect(attrs.every((a) => a.int_conv_plan)).toBe(true);
    const plain = await compileMobileNet({ optimizationSwitch: { 'pack-int-weights': false } });
    expect(requantizedTasks(plain).attrs.some((a) => a.packed_weight)).toBe(false);
    const input = seededInput('uint8', [1, 224, 224, 3], 5);
    const [a, b] = [await runOnce(om, input), await runOnce(plain, input)];
    expect(Array.from(a.data as Uint8Array)).toEqual(Array.from(b.data as Uint8Array));
    expect(new Set(Array.from(a.data as Uint8Array)).size).toBeGreaterThan(5);
  }, 240_000);

  it('a packed weight or a plan that does not fit its node is a coded error, not a wrong result', async () => {
    const om = await compileMobileNet();
    const input = seededInput('uint8', [1, 224, 224, 3], 6);
    const tampered = (edit: (a: Attrs) => boolean): Uint8Array => {
      const { model, attrs } = requantizedTasks(om);
      expect(attrs.some(edit)).toBe(true);
      return writeOm({ ...model, modelName: model.header.modelName, target: model.header.target, flags: model.header.flags });
    };
    // more rows than the packed weight holds
    const rows = tampered((a) => {
      const v = a.packed_weight?.value as number[] | undefined;
      if (!v) return false;
      a.packed_weight = { kind: 'ints', value: [v[0], (v[1] as number) + 4, ...v.slice(2)] };
      return true;
    });
    await expect(runOnce(rows, input)).rejects.toMatchObject({ code: 'TSGE-E6007', cause: { code: 'TSGE-E4003' } });
    // a GEMM plan relabelled depthwise
    const plan = tampered((a) => {
      const v = a.int_conv_plan?.value as number[] | undefined;
      if (v?.[1] !== 2) return false;
      a.int_conv_plan = { kind: 'ints', value: [v[0], 1, ...v.slice(2)] };
      return true;
    });
    await expect(runOnce(plan, input)).rejects.toMatchObject({ code: 'TSGE-E6007', cause: { code: 'TSGE-E7106' } });
  }, 240_000);
});
