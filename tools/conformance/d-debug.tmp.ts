import { readFile } from 'node:fs/promises';
import { parseOnnx } from '@tsge/parser-onnx';
const path = '../../../shared/testdata/onnx-backend/node/test_loop16_seq_none/model.onnx';
const parsed = await parseOnnx({ bytes: new Uint8Array(await readFile(path)), path, readRelative: async () => new Uint8Array() });
const g = parsed.graph!;
const dump = (gr: typeof g, indent: string) => {
  for (const n of gr.nodes) {
    console.log(
      indent,
      n.opDesc.type,
      n.opDesc.name,
      'in:',
      n.inData.map((a) => (a.peer ? `${a.peer.node.opDesc.name}:${a.peer.index}` : '-')).join(','),
      [...n.opDesc.attrs.entries()]
        .filter(([k]) => k.startsWith('_') || k === 'index')
        .map(([k, v]) => `${k}=${JSON.stringify(v.value)}`)
        .join(' '),
      JSON.stringify(n.opDesc.outputDescs.map((d) => [d.dtype, d.valueKind, d.shape])),
    );
  }
};
dump(g, '');
for (const [name, sub] of g.subgraphs) {
  console.log('--', name);
  dump(sub, '  ');
}
