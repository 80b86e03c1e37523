// @tsge/ge finds the Caffe and MindSpore parsers by discovery and sniffing, and reads --weight itself.
import path from 'node:path';
import { listParsers, parseModel } from '@tsge/ge';
import { describe, expect, it } from 'vitest';

const models = path.resolve(process.cwd(), '../shared/testdata/models');

describe('parser discovery', () => {
  it('lists caffe (framework 0) and mindspore (framework 1)', async () => {
    const parsers = await listParsers();
    expect(parsers.find((p) => p.name === 'caffe')?.framework).toBe(0);
    expect(parsers.find((p) => p.name === 'mindspore')?.framework).toBe(1);
  });

  it('sniffs a prototxt and reads weightsPath, or fails without it', async () => {
    const prototxt = path.join(models, 'caffe/lenet/lenet.prototxt');
    const graph = await parseModel(prototxt, { weightsPath: path.join(models, 'caffe/lenet/lenet_iter_10000.caffemodel') });
    expect(graph.nodesOfType('Conv')).toHaveLength(2);
    await expect(parseModel(prototxt)).rejects.toMatchObject({ code: 'TSGE-E3208' });
    await expect(parseModel(prototxt, { weightsPath: path.join(models, 'caffe/lenet/missing.caffemodel') })).rejects.toMatchObject({
      code: 'TSGE-E3001',
    });
    const filled = await parseModel(prototxt, { format: 0, parserOptions: { initializeWeights: { seed: 1 } } });
    expect(filled.nodesOfType('Gemm')).toHaveLength(2);
  });

  it('sniffs a MindIR file without being told the format', async () => {
    const graph = await parseModel(path.join(models, 'mindspore/relu.mindir'));
    expect(graph.nodesOfType('Relu')).toHaveLength(1);
  });
});
