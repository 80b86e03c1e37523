import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTensor } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { parseRunArgs, parseShapeList } from './cli-args.js';
import { compareTensors } from './compare.js';
import { main } from './main.js';
import { decodeNpy, encodeNpy } from './npy.js';
import { latencyStats } from './stats.js';

const testdata = path.resolve(process.cwd(), '../shared/testdata');
const mnist = path.join(testdata, 'models/onnx/mnist.onnx');

describe('tsge-run pieces', () => {
  it('round-trips .npy files of several dtypes', () => {
    for (const t of [
      createTensor('float32', [2, 3], Float32Array.from([1, 2, 3, 4, 5, 6])),
      createTensor('int64', [3], BigInt64Array.from([1n, -2n, 3n])),
      createTensor('uint8', [], Uint8Array.from([7])),
    ]) {
      const back = decodeNpy(encodeNpy(t));
      expect(back.type).toBe(t.type);
      expect(back.dims).toEqual(t.dims);
      expect(Array.from(back.data as ArrayLike<unknown>)).toEqual(Array.from(t.data as ArrayLike<unknown>));
    }
  });

  it('rejects a malformed .npy with a code', () => {
    expect(() => decodeNpy(new Uint8Array([1, 2, 3]), 'bad.npy')).toThrow(/TSGE-E2001.*bad magic/);
  });

  it('parses flags in both forms and rejects bad ones with codes', () => {
    const a = parseRunArgs(['--model=m.onnx', '--loop', '5', '--input-shape', 'x:1,3,8,8;y:2', '--input', 'x=a.npy', '--json']);
    expect(a.model).toBe('m.onnx');
    expect(a.loop).toBe(5);
    expect(a.inputShapes.get('x')).toEqual([1, 3, 8, 8]);
    expect(a.inputs.get('x')).toBe('a.npy');
    expect(a.json).toBe(true);
    expect(() => parseRunArgs(['--model', 'm', '--bogus'])).toThrow(/TSGE-E7001/);
    expect(() => parseRunArgs(['--model', 'm', '--loop', '0'])).toThrow(/TSGE-E7002/);
    expect(() => parseRunArgs(['--loop', '2'])).toThrow(/TSGE-E7004/);
    expect(() => parseShapeList('--input-shape', 'x:1,a')).toThrow(/TSGE-E7002/);
  });

  it('computes latency percentiles and errors', () => {
    const s = latencyStats([5, 1, 3, 2, 4]);
    expect([s.minMs, s.medianMs, s.maxMs]).toEqual([1, 3, 5]);
    const e = compareTensors(
      'y',
      createTensor('float32', [3], Float32Array.from([1, 2, 3.5])),
      createTensor('float32', [3], Float32Array.from([1, 2, 3])),
    );
    expect(e.maxAbsError).toBeCloseTo(0.5);
    expect(e.maxRelError).toBeCloseTo(0.5 / 3);
  });
});

describe('tsge-run end to end', () => {
  it('compiles mnist in process, runs it on an .npy input and matches onnxruntime-node', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tsge-run-'));
    const input = createTensor(
      'float32',
      [1, 1, 28, 28],
      Float32Array.from({ length: 784 }, (_, i) => (i % 29) / 29),
    );
    writeFileSync(path.join(dir, 'in.npy'), encodeNpy(input));
    const lines: string[] = [];
    const code = await main(
      [
        '--model',
        mnist,
        '--input',
        `Input3=${path.join(dir, 'in.npy')}`,
        '--output-dir',
        dir,
        '--compare',
        'onnxruntime',
        '--threads',
        '1',
        '--json',
      ],
      (s) => lines.push(s),
    );
    expect(code).toBe(0);
    const report = JSON.parse(lines.join('\n'));
    expect(report.outputs[0].dims).toEqual([1, 10]);
    expect(report.comparison[0].shapeMatches).toBe(true);
    expect(report.comparison[0].maxRelError).toBeLessThan(1e-4);
    const out = decodeNpy(new Uint8Array(readFileSync(path.join(dir, `${report.outputs[0].name}.npy`))));
    expect(out.dims).toEqual([1, 10]);
  });

  it('runs mnist on the js device (compiled for target js) and matches onnxruntime-node; an unknown device is TSGE-E6200', async () => {
    const lines: string[] = [];
    const code = await main(['--model', mnist, '--device', 'js', '--compare', 'onnxruntime', '--json'], (s) => lines.push(s));
    expect(code).toBe(0);
    const report = JSON.parse(lines.join('\n'));
    expect(report.comparison[0].shapeMatches).toBe(true);
    expect(report.comparison[0].maxRelError).toBeLessThan(1e-4);
    const errors: string[] = [];
    expect(
      await main(
        ['--model', mnist, '--device', 'gpu'],
        () => {},
        (s) => errors.push(s),
      ),
    ).not.toBe(0);
    expect(errors.join('\n')).toMatch(/TSGE-E6200.*unknown device "gpu".*cpu, js/);
  });

  it('reports a missing model and an unknown input name with codes, without a stack trace', async () => {
    const errors: string[] = [];
    expect(
      await main(
        ['--model', '/nonexistent/model.om'],
        () => {},
        (s) => errors.push(s),
      ),
    ).toBe(2);
    expect(errors.join('\n')).toMatch(/TSGE-E7003/);
    errors.length = 0;
    expect(
      await main(
        ['--model', mnist, '--input', 'nope=x.npy', '--threads', '1'],
        () => {},
        (s) => errors.push(s),
      ),
    ).toBe(2);
    expect(errors.join('\n')).toMatch(/TSGE-E7003|TSGE-E6002/);
    expect(errors.join('\n')).not.toMatch(/\n\s+at /);
  });

  it('reports --output-dir under a regular file and a directory as the model as user errors (issue 11)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tsge-run-fs-'));
    const file = path.join(dir, 'plain.txt');
    writeFileSync(file, 'x');
    const errors: string[] = [];
    const code = await main(
      ['--model', mnist, '--threads', '1', '--output-dir', path.join(file, 'outputs')],
      () => {},
      (s) => errors.push(s),
    );
    expect(code).toBe(2);
    expect(errors.join('\n')).toContain(`TSGE-E7050 error: cannot create directory ${path.join(file, 'outputs')}`);
    expect(errors.join('\n')).not.toMatch(/internal error/);
    errors.length = 0;
    expect(
      await main(
        ['--model', `${dir}/`, '--threads', '1'],
        () => {},
        (s) => errors.push(s),
      ),
    ).toBe(2);
    expect(errors.join('\n')).toMatch(/TSGE-E3001.*it is a directory/);
  });
});
