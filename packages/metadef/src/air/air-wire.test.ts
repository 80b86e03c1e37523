import { describe, expect, it } from 'vitest';
import type { Graph } from '../graph/graph.js';
import { parseAir } from './parse-air.js';
import { serializeAir } from './serialize-air.js';

// A minimal protobuf writer, so this test checks field numbers against GE's published schema
// (shared/design/ge-ir-schema.md) independently of the generated code.
type Field = [number, number | bigint | string | Uint8Array | Field[]];

function varint(value: bigint): number[] {
  let v = BigInt.asUintN(64, value);
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v) byte |= 0x80;
    out.push(byte);
  } while (v);
  return out;
}

function message(fields: Field[]): Uint8Array {
  const out: number[] = [];
  for (const [number, value] of fields) {
    if (typeof value === 'number' || typeof value === 'bigint') {
      out.push(...varint(BigInt(number << 3)), ...varint(BigInt(value)));
      continue;
    }
    const bytes = typeof value === 'string' ? new TextEncoder().encode(value) : value instanceof Uint8Array ? value : message(value);
    out.push(...varint(BigInt((number << 3) | 2)), ...varint(BigInt(bytes.length)), ...bytes);
  }
  return Uint8Array.from(out);
}

/** A map<string, AttrDef> entry: key 1, value 2. */
const attrEntry = (field: number, key: string, attrDef: Field[]): Field => [
  field,
  [
    [1, key],
    [2, attrDef],
  ],
];
/** TensorDescriptor: dtype 2, shape 3 (ShapeDef dim 1), layout 4. */
const desc = (dtype: number, dims: number[], layout = 'ND'): Field[] => [
  [2, dtype],
  [3, dims.map((d): Field => [1, BigInt(d)])],
  [4, layout],
];

describe('.air wire format', () => {
  it('reads a ModelDef written field by field from the GE schema numbers', () => {
    const weights = new Uint8Array(new Float32Array([1, 2]).buffer);
    const bytes = message([
      [1, 'model'], // ModelDef.name
      [
        7, // ModelDef.graph
        [
          [1, 'main'], // GraphDef.name
          [
            6, // GraphDef.op
            [
              [1, 'x'],
              [2, 'Data'],
              attrEntry(10, 'index', [[3, 0]]), // OpDef.attr, AttrDef.i
              [34, desc(1, [-1, 2], 'NCHW')], // OpDef.output_desc
            ],
          ],
          [
            6,
            [
              [1, 'w'],
              [2, 'Const'],
              attrEntry(10, 'value', [
                [
                  12,
                  [
                    [1, desc(1, [2])],
                    [2, weights],
                  ],
                ],
              ]), // AttrDef.t: TensorDef desc 1, data 2
              [34, desc(1, [2])],
            ],
          ],
          [
            6,
            [
              [1, 'mul'],
              [2, 'Mul'],
              [5, 'x:0'], // OpDef.input
              [5, 'w:0'],
              [5, 'x:-1'], // control edge
              attrEntry(10, 'axes', [
                [
                  1,
                  [
                    [3, 1],
                    [3, -2n],
                    [20, 2],
                  ],
                ],
              ]), // AttrDef.list: i 3, val_type 20 = VT_LIST_INT
              attrEntry(10, 'mode', [[2, 'fast']]), // AttrDef.s
              [22, 3], // OpDef.stream_id
              [28, 64], // OpDef.input_i
              [29, 128], // OpDef.output_i
              [33, desc(1, [-1, 2])], // OpDef.input_desc
              [33, desc(1, [2])],
              [34, desc(1, [-1, 2])],
            ],
          ],
          [
            6,
            [
              [1, 'out'],
              [2, 'NetOutput'],
              [5, 'mul:0'],
              [33, desc(1, [-1, 2])],
            ],
          ],
        ],
      ],
    ]);
    const { graph, diagnostics } = parseAir(bytes);
    expect(diagnostics).toEqual([]);
    const g = graph as Graph;
    const mul = g.findNode('mul');
    expect(mul?.producer(0)?.node.name).toBe('x');
    expect(mul?.producer(1)?.node.name).toBe('w');
    expect(mul?.inControl.peers.map((p) => p.node.name)).toEqual(['x']);
    expect(mul?.opDesc.attrs.get('axes')).toEqual({ kind: 'ints', value: [1, -2] });
    expect(mul?.opDesc.attrs.get('mode')).toEqual({ kind: 'string', value: 'fast' });
    expect([mul?.opDesc.streamId, mul?.opDesc.inputOffsets, mul?.opDesc.outputOffsets]).toEqual([3, [64], [128]]);
    expect(g.findNode('x')?.opDesc.outputDescs[0]).toMatchObject({ dtype: 'float32', shape: [-1, 2], format: 'NCHW' });
    const w = g.findNode('w')?.opDesc.attrs.get('value');
    expect(w?.kind === 'tensor' && Array.from(w.value.data as Float32Array)).toEqual([1, 2]);
  });

  it('writes the same field numbers: graph 7, op 6, input 5, attr 10, subgraph_name 35', () => {
    const { graph } = parseAir(
      message([
        [
          7,
          [
            [1, 'main'],
            [
              6,
              [
                [1, 'call'],
                [2, 'PartitionedCall'],
                [35, 'f'],
              ],
            ],
            [
              6,
              [
                [1, 'out'],
                [2, 'NetOutput'],
              ],
            ],
          ],
        ],
        [7, [[1, 'f']]],
      ]),
    );
    const bytes = serializeAir(graph as Graph);
    // ModelDef.graph (7, length-delimited) comes right after the name (1)
    const text = new TextDecoder('latin1').decode(bytes);
    expect(bytes[0]).toBe((1 << 3) | 2);
    expect(text).toContain(String.fromCharCode((7 << 3) | 2));
    // OpDef.subgraph_name is field 35: tag varint 35<<3|2 = 282 → 0x9a 0x02
    expect(text).toContain(`\u009a\u0002\u0001f`);
    const back = parseAir(bytes).graph as Graph;
    expect(back.subgraph('f')?.parentNode?.name).toBe('call');
  });
});
