import { describe, expect, it } from 'vitest';
import { readFlowOm, readOm, writeFlowOm } from './index.js';
import { HEADER } from './layout.js';

const flowModel = new TextEncoder().encode('{"version":1}');
const submodels = [
  { name: 'det', bytes: Uint8Array.of(1, 2, 3) },
  { name: 'rec', bytes: new Uint8Array(100).fill(7) },
];

describe('flow models (GE model type 3)', () => {
  it('round-trips FLOW_MODEL and FLOW_SUBMODEL partitions', () => {
    const bytes = writeFlowOm({ modelName: 'ocr', flowModel, submodels });
    const { model, diagnostics } = readFlowOm(bytes);
    expect(diagnostics).toEqual([]);
    expect(model?.header).toMatchObject({ modelType: 'flow', modelName: 'ocr', partitionCount: 2 });
    expect(model?.flowModel).toEqual(flowModel);
    expect(model?.submodels.map((s) => [s.name, s.bytes.length])).toEqual([
      ['det', 3],
      ['rec', 100],
    ]);
    expect(new DataView(bytes.buffer).getUint32(HEADER.modelType, true)).toBe(3);
  });

  it('tells a flow model and a standard model apart, and rejects unknown model types', () => {
    const bytes = writeFlowOm({ modelName: 'ocr', flowModel, submodels });
    expect(readOm(bytes).diagnostics[0]?.message).toMatch(/flow model/);
    const odd = bytes.slice();
    new DataView(odd.buffer).setUint32(HEADER.modelType, 7, true);
    expect(readFlowOm(odd).diagnostics[0]).toMatchObject({ code: 'TSGE-E2001', message: expect.stringMatching(/unknown model type 7/) });
  });

  it('rejects truncated submodel lists and corrupt bytes with diagnostics', () => {
    const bytes = writeFlowOm({ modelName: 'ocr', flowModel, submodels });
    for (let cut = 0; cut < bytes.length; cut += 37) expect(readFlowOm(bytes.subarray(0, cut)).model).toBeUndefined();
    const corrupt = bytes.slice();
    corrupt[corrupt.length - 5] ^= 0xff;
    expect(readFlowOm(corrupt).diagnostics[0]?.code).toBe('TSGE-E2005');
  });
});
