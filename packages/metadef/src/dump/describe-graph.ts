import type { Graph } from '../graph/graph.js';
import type { Node } from '../graph/node.js';
import type { AttrValue, NamedAttrs } from '../types/attr.js';
import { type Shape, isUnknownRank } from '../types/shape.js';
import type { HostTensor } from '../types/tensor.js';
import type { TensorDesc } from '../types/tensor-desc.js';

/**
 * A canonical text form of a graph tree: nodes in graph order with type, domain, attributes
 * (tensor data byte-exact), descs, data and control edges, compile metadata, then every subgraph
 * with its parent. Node ids are left out, so two graphs built the same way describe the same.
 */
export function describeGraph(graph: Graph): string {
  const lines: string[] = [];
  describeOne(graph, lines);
  if (graph.isRoot) {
    for (const [name, sub] of graph.subgraphs) {
      lines.push(`subgraph ${name} parent=${sub.parentNode ? `${sub.parentNode.graph?.name ?? '?'}/${sub.parentNode.name}` : '-'}`);
      describeOne(sub, lines);
    }
  }
  return lines.join('\n');
}

/** Whether two graph trees have the same structure, attributes, descs and tensor bytes. */
export function graphsStructurallyEqual(a: Graph, b: Graph): boolean {
  return describeGraph(a) === describeGraph(b);
}

function describeOne(graph: Graph, lines: string[]): void {
  lines.push(`graph ${graph.name}${attrsText(graph.attrs)}`);
  for (const node of graph.nodes) lines.push(...describeNode(node));
}

function describeNode(node: Node): string[] {
  const d = node.opDesc;
  const inputs = node.inData.map((a) => (a.peer ? `${a.peer.node.name}:${a.peer.index}` : '-'));
  const control = node.inControl.peers.map((p) => p.node.name);
  const lines = [
    `  node ${d.name} ${d.domain}::${d.type} in=[${inputs.join(' ')}] ctrl=[${control.join(' ')}] outs=${node.outData.length}`,
  ];
  if (d.attrs.size) lines.push(`    attrs${attrsText(d.attrs)}`);
  d.inputDescs.forEach((t, i) => {
    lines.push(`    in ${i}: ${descText(t)}`);
  });
  d.outputDescs.forEach((t, i) => {
    lines.push(`    out ${i}: ${descText(t)}`);
  });
  const meta: string[] = [];
  if (d.inputNames.length) meta.push(`inputNames=${JSON.stringify(d.inputNames)}`);
  if (d.outputNames.length) meta.push(`outputNames=${JSON.stringify(d.outputNames)}`);
  if (d.subgraphNames.length) meta.push(`subgraphs=${JSON.stringify(d.subgraphNames)}`);
  if (d.streamId !== undefined) meta.push(`stream=${d.streamId}`);
  // an empty offset list and no list mean the same (the .air format cannot tell them apart)
  if (d.inputOffsets?.length) meta.push(`inputOffsets=${d.inputOffsets.join(',')}`);
  if (d.outputOffsets?.length) meta.push(`outputOffsets=${d.outputOffsets.join(',')}`);
  if (d.workspaceBytes?.length) meta.push(`workspaceBytes=${d.workspaceBytes.join(',')}`);
  if (meta.length) lines.push(`    ${meta.join(' ')}`);
  return lines;
}

function attrsText(attrs: ReadonlyMap<string, AttrValue>): string {
  return [...attrs.keys()]
    .sort()
    .map((k) => ` ${k}=${attrText(attrs.get(k) as AttrValue)}`)
    .join('');
}

const num = (n: number): string => (Object.is(n, -0) ? '-0' : String(n));
const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

function attrText(a: AttrValue): string {
  switch (a.kind) {
    case 'int':
    case 'float':
      return `${a.kind}(${num(a.value)})`;
    case 'string':
    case 'graph':
    case 'expression':
    case 'dtype':
      return `${a.kind}(${JSON.stringify(a.value)})`;
    case 'bool':
      return `bool(${a.value})`;
    case 'bytes':
      return `bytes(${hex(a.value)})`;
    case 'tensor':
      return `tensor(${tensorText(a.value)})`;
    case 'tensor_desc':
      return `tensor_desc(${descText(a.value)})`;
    case 'named_attrs':
      return `named_attrs(${namedText(a.value)})`;
    case 'ints':
    case 'floats':
      return `${a.kind}[${a.value.map(num).join(',')}]`;
    case 'strings':
    case 'graphs':
    case 'dtypes':
      return `${a.kind}${JSON.stringify(a.value)}`;
    case 'bools':
      return `bools[${a.value.join(',')}]`;
    case 'bytes_list':
      return `bytes_list[${a.value.map(hex).join(',')}]`;
    case 'tensors':
      return `tensors[${a.value.map(tensorText).join(',')}]`;
    case 'tensor_descs':
      return `tensor_descs[${a.value.map(descText).join(',')}]`;
    case 'named_attrs_list':
      return `named_attrs_list[${a.value.map(namedText).join(',')}]`;
    case 'list_list_int':
    case 'list_list_float':
      return `${a.kind}[${a.value.map((row) => `[${row.map(num).join(',')}]`).join(',')}]`;
  }
}

function namedText(n: NamedAttrs): string {
  return `${JSON.stringify(n.name)}{${attrsText(n.attrs).trim()}}`;
}

function tensorText(t: HostTensor): string {
  const data = Array.isArray(t.data) ? JSON.stringify(t.data) : hex(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
  return `${t.type}[${t.dims.join(',')}]:${data}`;
}

export function descText(t: TensorDesc): string {
  const parts = [`${t.dtype}${shapeText(t.shape)} ${t.format}`];
  if (t.originFormat !== t.format || shapeText(t.originShape) !== shapeText(t.shape)) {
    parts.push(`origin=${shapeText(t.originShape)} ${t.originFormat}`);
  }
  if (t.shapeRange) parts.push(`range=${t.shapeRange.map((r) => `${r[0]}..${r[1]}`).join(',')}`);
  if (t.valueKind) parts.push(`kind=${t.valueKind}`);
  return parts.join(' ');
}

/** Like shapeToString, but quotes symbols so a symbol named "3" differs from the dim 3. */
function shapeText(shape: Shape): string {
  if (isUnknownRank(shape)) return '[*]';
  return `[${shape.map((d) => (typeof d === 'string' ? `'${d}'` : String(d))).join(',')}]`;
}
