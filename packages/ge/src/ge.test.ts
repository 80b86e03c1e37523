import path from 'node:path';
import { GraphBuilder, TsgeError, createTensor } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { Session, buildModel, defaultRegistries, finalize, initialize, listParsers, loadModel, parseModel } from './index.js';

const testdata = path.resolve(process.cwd(), '../shared/testdata');

function smallGraph() {
  const b = new GraphBuilder('g', { ops: defaultRegistries().ops });
  const x = b.input('x', 'float32', [2, 3]);
  const w = b.constant('w', Float32Array.from([1, 2, 3, 4, 5, 6]), [3, 2]);
  const y = b.op('MatMul', [x, w]);
  b.output(b.op('Relu', [y]), 'y');
  return b.build();
}

describe('@tsge/ge', () => {
  it('initialize starts worker threads a model then runs on, and refuses a bad count', async () => {
    await expect(initialize({ workers: -1 })).rejects.toThrow(/TSGE-E7002.*GeOptions\.workers/);
    await expect(initialize({ workers: 1.5 })).rejects.toThrow(/TSGE-E7002/);
    await initialize({ workers: 2 });
    const session = new Session({ load: { threads: 2, smallModelBytes: 0 } });
    session.addGraph(1, smallGraph());
    const out = await session.runGraph(1, { x: createTensor('float32', [2, 3], Float32Array.from([1, 0, -1, 0, 1, 0])) });
    expect([...(out.y as unknown as { data: Float32Array }).data]).toEqual([0, 0, 3, 4]);
    await session.release();
    await finalize();
  });

  it('discovers the installed ONNX parser', async () => {
    expect((await listParsers()).map((p) => p.name)).toContain('onnx');
  });

  it('runs a graph built in code through a Session (online path)', async () => {
    const session = new Session({ load: { threads: 1 } });
    session.addGraph(1, smallGraph());
    const summary = await session.compileGraph(1);
    expect(summary).toBeDefined();
    const out = await session.runGraph(1, { x: createTensor('float32', [2, 3], Float32Array.from([1, 0, -1, 0, 1, 0])) });
    const y = out.y as unknown as { dims: number[]; data: Float32Array };
    expect(y.dims).toEqual([2, 2]);
    expect([...y.data]).toEqual([0, 0, 3, 4]);
    expect(() => session.addGraph(1, smallGraph())).toThrow(/already added/);
    await session.release();
    await expect(session.runGraph(1, {})).rejects.toThrow(/TSGE-E6006/);
  });

  it('parses, builds and loads a real ONNX model (offline path)', async () => {
    const graph = await parseModel(path.join(testdata, 'models/onnx/mnist.onnx'));
    const om = await buildModel(graph);
    const model = await loadModel(om, { threads: 1 });
    expect(model.inputNames).toEqual(['Input3']);
    const out = await model.run({ Input3: createTensor('float32', [1, 1, 28, 28]) });
    expect(Object.keys(out)).toHaveLength(1);
    await model.release();
  });

  it('reads GE .air files through the built-in air parser', async () => {
    const { serializeAir } = await import('@tsge/metadef');
    const graph = await parseModel(serializeAir(smallGraph()), { fileName: 'small.air' });
    const model = await loadModel(await buildModel(graph), { threads: 1 });
    const out = await model.run({ x: createTensor('float32', [2, 3], Float32Array.from([1, 0, -1, 0, 1, 0])) });
    expect([...(out.y as { data: Float32Array }).data]).toEqual([0, 0, 3, 4]);
    await model.release();
  });

  it('reports missing files and unknown formats with codes', async () => {
    await expect(parseModel('/nonexistent/model.onnx')).rejects.toSatisfy(
      (e: unknown) => TsgeError.isInstance(e) && e.code === 'TSGE-E3001',
    );
    await expect(parseModel(new Uint8Array([1, 2, 3]), { format: 'no-such-format' })).rejects.toSatisfy(
      (e: unknown) => TsgeError.isInstance(e) && e.code === 'TSGE-E3005',
    );
    // the Caffe parser is discovered (a dev dependency here): garbage given to it is a coded syntax error
    await expect(parseModel(new Uint8Array([1, 2, 3]), { format: 'caffe' })).rejects.toSatisfy(
      (e: unknown) => TsgeError.isInstance(e) && e.code === 'TSGE-E3201',
    );
  });
});
