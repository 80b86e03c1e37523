// Temporary: checks op inference against the node suite's expected output dims (not committed).
import { readFile } from 'node:fs/promises';
import {
  ATTR_INDEX,
  ATTR_PARENT_NODE_INDEX,
  CONST,
  DATA,
  type Graph,
  NET_OUTPUT,
  type ValueInfo,
  createTensorDesc,
  inferNode,
  isHostTensor,
  topologicalSort,
  valueInfoOf,
} from '@tsge/metadef';
import { createDefaultOpRegistry } from '@tsge/ops';
import { decodeValueProto, parseOnnx } from '@tsge/parser-onnx';
import { discoverTests, numberedFiles } from './src/test-case.js';

const ops = createDefaultOpRegistry();
const intAttr = (n: { opDesc: { attrs: Map<string, { kind: string; value: unknown }> } }, name: string) => {
  const a = n.opDesc.attrs.get(name);
  return a?.kind === 'int' ? (a.value as number) : undefined;
};
function inferGraph(root: Graph, g: Graph, problems: string[]): void {
  const sorted = topologicalSort(g);
  if (!sorted.ok) throw new Error('cycle');
  for (const node of sorted.order) {
    const t = node.opDesc.type;
    if (t === DATA || t === CONST || t === NET_OUTPUT) continue;
    // forget parser descs so only inference speaks
    node.opDesc.outputDescs.forEach((_, i) => {
      node.opDesc.outputDescs[i] = createTensorDesc('float32', [-2]);
    });
    const diags = inferNode(g, node, ops, {
      opsetVersion: intAttr(node as never, '_opset') ?? undefined,
      inferSubgraph: (attrName, inputs) => {
        const a = node.opDesc.attrs.get(attrName);
        const sub = a?.kind === 'graph' ? root.subgraphs.get(a.value) : undefined;
        if (!sub) return [];
        for (const d of sub.nodesOfType(DATA)) {
          const implicit = d.opDesc.attrs.get('_implicit_input')?.kind === 'bool';
          let info: ValueInfo | undefined;
          if (implicit) {
            const p = node.inData[intAttr(d as never, ATTR_PARENT_NODE_INDEX) ?? -1]?.peer;
            const desc = p?.node.opDesc.outputDescs[p.index];
            info = desc ? valueInfoOf(desc) : undefined;
          } else info = inputs[intAttr(d as never, ATTR_INDEX) ?? 0];
          if (info) {
            const desc = createTensorDesc(info.dtype, info.shape);
            if (info.kind && info.kind !== 'tensor') desc.valueKind = info.kind;
            d.opDesc.outputDescs[0] = desc;
          }
        }
        inferGraph(root, sub, problems);
        const out = sub.outputNode();
        return (out?.inData ?? []).map((anchor) => {
          const p = anchor.peer;
          const desc = p?.node.opDesc.outputDescs[p.index];
          return desc ? valueInfoOf(desc) : undefined;
        });
      },
    });
    for (const d of diags) problems.push(`${node.opDesc.type}: ${d.message}`);
  }
}

const filter = process.argv.slice(2);
let exact = 0;
let compatible = 0;
let bad = 0;
for (const test of discoverTests('../../../shared/testdata/onnx-backend/node')) {
  if (!filter.some((f) => test.name.includes(f))) continue;
  const bytes = new Uint8Array(await readFile(test.modelPath));
  const parsed = await parseOnnx({ bytes, path: test.modelPath, readRelative: async () => new Uint8Array() });
  const graph = parsed.graph;
  if (!graph) continue;
  const problems: string[] = [];
  try {
    inferGraph(graph, graph, problems);
  } catch (e) {
    problems.push(String(e));
  }
  const outs = graph.outputNode()?.inData ?? [];
  const files = numberedFiles(test.dataSets[0] as string, 'output');
  let status = 'exact';
  for (let i = 0; i < files.length; i++) {
    const p = outs[i]?.peer;
    const desc = p?.node.opDesc.outputDescs[p.index];
    let expected;
    try {
      expected = decodeValueProto(
        new Uint8Array(await readFile(files[i] as string)),
        desc?.valueKind === 'sequence' ? 'sequence' : desc?.valueKind === 'optional' ? 'optional' : 'tensor',
      );
    } catch {
      continue;
    }
    if (!isHostTensor(expected) || !desc) continue;
    const shape = desc.shape;
    if (shape.length === 1 && shape[0] === -2) {
      status = status === 'bad' ? 'bad' : 'compatible';
      continue;
    }
    if (desc.dtype !== expected.type || shape.length !== expected.dims.length) {
      status = 'bad';
      problems.push(`output ${i}: inferred ${desc.dtype}[${shape.join(',')}] expected ${expected.type}[${expected.dims.join(',')}]`);
      continue;
    }
    shape.forEach((d, j) => {
      if (typeof d === 'number' && d >= 0) {
        if (d !== expected.dims[j]) {
          status = 'bad';
          problems.push(`output ${i}: inferred [${shape.join(',')}] expected [${expected.dims.join(',')}]`);
        }
      } else if (status === 'exact') status = 'compatible';
    });
  }
  if (problems.length) status = 'bad';
  if (status === 'exact') exact++;
  else if (status === 'compatible') {
    compatible++;
    if (process.env.SHOW) console.log(`COMPAT ${test.name}`);
  } else {
    bad++;
    console.log(`BAD ${test.name}: ${problems.slice(0, 3).join(' | ')}`);
  }
}
console.log(`exact ${exact}, compatible ${compatible}, bad ${bad}`);
