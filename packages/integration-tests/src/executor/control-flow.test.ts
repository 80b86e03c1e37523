// Control flow compiled by @tsge/compiler and run by @tsge/executor: If/Loop nodes have dynamic
// outputs, so the model runs in host mode and the executor interprets their subgraphs.
import type { HostTensor } from '@tsge/metadef';
import { GraphBuilder } from '@tsge/metadef';
import { compile } from '@tsge/compiler';
import { type Executor, loadModel } from '@tsge/executor';
import { createDefaultOpRegistry } from '@tsge/ops';
import { afterEach, describe, expect, it } from 'vitest';

const ops = createDefaultOpRegistry();
const open: Executor[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.release()));
});
const data = (v: unknown): number[] => Array.from((v as HostTensor).data as Float32Array, Number);

describe('control flow', () => {
  it('If runs the branch its condition picks', async () => {
    const branch = (name: string, op: string) => {
      const sb = new GraphBuilder(name, { ops });
      const v = sb.constant(`${name}_v`, new Float32Array([1, 2]), [2]);
      sb.output(sb.op(op, [v, sb.constant(`${name}_w`, new Float32Array([10, 20]), [2])]), 'r');
      return sb.build();
    };
    const b = new GraphBuilder('if', { ops });
    const c = b.input('c', 'bool', []);
    b.output(b.op('If', [c], { subgraphs: { then_branch: branch('then', 'Add'), else_branch: branch('else', 'Mul') } }), 'y');
    const executor = await loadModel((await compile(b.build())).om, { threads: 2 });
    open.push(executor);
    expect(executor.mode).toBe('sink'); // a dynamic model runs on the workers too
    expect(data((await executor.run({ c: { type: 'bool', dims: [], data: new Uint8Array([1]) } })).y)).toEqual([11, 22]);
    expect(data((await executor.run({ c: { type: 'bool', dims: [], data: new Uint8Array([1]) } }, { mode: 'host' })).y)).toEqual([11, 22]);
    expect(data((await executor.run({ c: { type: 'bool', dims: [], data: new Uint8Array([0]) } })).y)).toEqual([10, 40]);
  });

  it('Loop carries a value through its body and stacks a scan output', async () => {
    // body(i, cond, x): x' = x * 2 + step; scan = x'
    const body = new GraphBuilder('body', { ops });
    body.input('i', 'int64', []);
    const cond = body.input('cond_in', 'bool', []);
    const x = body.input('x', 'float32', [2]);
    const doubled = body.op('Mul', [x, body.constant('two', new Float32Array([2, 2]), [2])]);
    const next = body.op('Add', [doubled, body.constant('step', new Float32Array([1, -1]), [2])]);
    body.output(body.op('Identity', [cond]), 'cond_out');
    body.output(next, 'x_out');
    body.output(body.op('Identity', [next]), 'scan');
    const b = new GraphBuilder('loop', { ops });
    const trips = b.input('trips', 'int64', []);
    const start = b.input('start', 'float32', [2]);
    const go = b.constant('go', new Uint8Array([1]), [], 'bool');
    const [final, stacked] = b.opN('Loop', [trips, go, start], 2, { subgraphs: { body: body.build() } });
    if (!final || !stacked) throw new Error('Loop has two outputs');
    b.output(final, 'final');
    b.output(stacked, 'stacked');
    const executor = await loadModel((await compile(b.build())).om, { threads: 1 });
    open.push(executor);
    const r = await executor.run({
      trips: { type: 'int64', dims: [], data: new BigInt64Array([3n]) },
      start: { type: 'float32', dims: [2], data: new Float32Array([1, 1]) },
    });
    // (1,1) → (3,1) → (7,1) → (15,1)
    expect(data(r.final)).toEqual([15, 1]);
    expect((r.stacked as HostTensor).dims).toEqual([3, 2]);
    expect(data(r.stacked)).toEqual([3, 1, 7, 1, 15, 1]);
  });
});
