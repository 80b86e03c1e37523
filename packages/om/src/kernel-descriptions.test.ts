import { type KernelDescription, KOp, KernelDtype, KernelKind } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { omToJson } from './om-to-json.js';
import { readOm } from './read-om.js';
import { sampleModel } from './test-model.js';
import { writeOm } from './write-om.js';

const relu: KernelDescription = {
  kind: KernelKind.elementwise,
  dtype: KernelDtype.float32,
  shape: [4],
  inputs: [{ size: 4, strides: [1] }],
  constants: [],
  instructions: [{ op: KOp.relu, a: 0, b: 0 }],
  output: 1,
  vectorWidth: 4,
};

/** The sample model's .om whose KERNELS holds these raw modules (a hand-made or corrupted file). */
function withKernels(modules: { name: string; bytes: Uint8Array }[]): Uint8Array {
  return writeOm({ ...sampleModel(), kernels: modules });
}

describe('kernel descriptions in KERNELS', () => {
  it('are written after the WebAssembly modules and read back validated, apart from them', () => {
    const model = { ...sampleModel(), kernelDescriptions: [relu, { ...relu, shape: [2, 2], inputs: [{ size: 4, strides: [2, 1] }] }] };
    const read = readOm(writeOm(model));
    expect(read.diagnostics).toEqual([]);
    expect(read.model?.kernels.map((k) => k.name)).toEqual(['gen0']);
    expect(read.model?.kernelDescriptions).toEqual(model.kernelDescriptions);
    const json = omToJson(read.model as NonNullable<typeof read.model>) as { kernelDescriptions: { shape: number[] }[] };
    expect(json.kernelDescriptions.map((k) => k.shape)).toEqual([[4], [2, 2]]);
  });

  const words = (values: number[]) => new Uint8Array(Int32Array.from(values).buffer);
  // the relu description's words, as the writer lays them out, read back from raw modules
  const good = () =>
    readOm(withKernels([{ name: 'description:0', bytes: words([0x31444b54, 1, 1, 1, 1, 4, 1, 4, 1, 0, 1, 3, 0, 0, 1, 4]) }])).model
      ?.kernelDescriptions?.[0];

  it.each([
    ['a description cut short', [{ name: 'description:0', bytes: words([0x31444b54, 1, 1]) }], 'TSGE-E7100'],
    ['bytes that are not whole words', [{ name: 'description:0', bytes: new Uint8Array(10) }], 'TSGE-E7100'],
    ['descriptions out of order', [{ name: 'description:1', bytes: words([0x31444b54]) }], 'TSGE-E7100'],
    [
      'a stride past its input',
      [{ name: 'description:0', bytes: words([0x31444b54, 1, 1, 1, 1, 4, 1, 4, 2, 0, 1, 3, 0, 1, 4]) }],
      'TSGE-E7101',
    ],
    [
      'an unknown op code',
      [{ name: 'description:0', bytes: words([0x31444b54, 1, 1, 1, 1, 4, 1, 4, 1, 0, 1, 77, 0, 0, 1, 4]) }],
      'TSGE-E7101',
    ],
  ])('refuse %s with a coded error', (_what, modules, code) => {
    expect(good()).toEqual(relu);
    const read = readOm(withKernels(modules), { fileName: 'bad.om' });
    expect(read.model).toBeUndefined();
    expect(read.diagnostics.map((d) => d.code)).toEqual([code]);
    expect(read.diagnostics[0]?.location?.file).toBe('bad.om');
  });
});
