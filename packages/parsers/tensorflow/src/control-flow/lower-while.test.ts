// While frames the lowering refuses or bounds: a Merge with no NextIteration, and loops nested
// deeper than the subgraph depth limit. Each is a coded diagnostic naming the frame, in bounded time.
import { describe, expect, it } from 'vitest';
import { parseTensorflow } from '../index.js';

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const I = 'attr { key: "T" value { type: DT_INT32 } }';
const int = (name: string, v: number) =>
  `node { name: "${name}" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: ${v} } } } }\n`;

/** A counter loop `i < 3` in frame `p` over `init`; its Exit is `${p}/exit`. */
function counter(p: string, init: string, inner = (_value: string) => ({ nodes: '', next: '' })): string {
  const enter = `node { name: "${p}/enter" op: "Enter" input: "${init}" ${I} attr { key: "frame_name" value { s: "${p}" } } }\n`;
  const merge = `node { name: "${p}/merge" op: "Merge" input: ["${p}/enter", "${p}/next"] ${I} }\n`;
  const limit = `node { name: "${p}/limit" op: "Const" input: "^${p}/merge" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 3 } } } }\n`;
  const less = `node { name: "${p}/less" op: "Less" input: ["${p}/merge", "${p}/limit"] ${I} }\nnode { name: "${p}/cond" op: "LoopCond" input: "${p}/less" }\n`;
  const sw = `node { name: "${p}/switch" op: "Switch" input: ["${p}/merge", "${p}/cond"] ${I} }\nnode { name: "${p}/value" op: "Identity" input: "${p}/switch:1" ${I} }\n`;
  const body = inner(`${p}/value`);
  const one = `node { name: "${p}/one" op: "Const" input: "^${p}/value" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 1 } } } }\n`;
  const add = `node { name: "${p}/add" op: "AddV2" input: ["${body.next || `${p}/value`}", "${p}/one"] ${I} }\n`;
  const next = `node { name: "${p}/next" op: "NextIteration" input: "${p}/add" ${I} }\nnode { name: "${p}/exit" op: "Exit" input: "${p}/switch" ${I} }\n`;
  return enter + merge + limit + less + sw + body.nodes + one + add + next;
}

describe('TF1 while lowering', () => {
  it('converts a counter loop into one Loop', async () => {
    const result = await parseTensorflow({ bytes: text(`${int('zero', 0)}${counter('w', 'zero')}`), path: 'w.pbtxt' });
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(result.graph?.nodes.filter((n) => n.type === 'Loop')).toHaveLength(1);
  });

  it('refuses a loop Merge without a NextIteration with TSGE-E3123 naming the frame', async () => {
    const graph = `${int('zero', 0)}${counter('w', 'zero')}`.replace(
      'node { name: "w/next" op: "NextIteration" input: "w/add"',
      'node { name: "w/next" op: "Identity" input: "w/add"',
    );
    const result = await parseTensorflow({ bytes: text(graph), path: 'w.pbtxt' });
    expect(result.graph).toBeUndefined();
    const d = result.diagnostics.find((x) => x.code === 'TSGE-E3123');
    expect(d?.message).toMatch(/while loop w: w\/merge: a loop Merge joins an Enter and a NextIteration/);
  });

  it('bounds loops nested 40 deep with a coded diagnostic, in bounded time', async () => {
    let nest = (_v: string) => ({ nodes: '', next: '' });
    for (let level = 40; level >= 1; level--) {
      const inner = nest;
      const p = `l${level}`;
      nest = (v: string) => ({ nodes: counter(p, v, inner), next: `${p}/exit` });
    }
    const graph = `${int('zero', 0)}${counter('l0', 'zero', nest)}`;
    const started = performance.now();
    const result = await parseTensorflow({ bytes: text(graph), path: 'deep.pbtxt' });
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(result.graph).toBeUndefined();
    expect(result.diagnostics.map((d) => d.code)).toContain('TSGE-E3123');
    expect(result.diagnostics.map((d) => d.message).join('\n')).toMatch(/nesting depth 33 exceeds the limit 32/);
  });
});
