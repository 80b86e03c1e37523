import type { AttrValue, Graph } from '@tsge/metadef';
import { CONST, constValueOf, shapeToString, toNumberArray, topologicalSort } from '@tsge/metadef';

function attrText(value: AttrValue): string {
  switch (value.kind) {
    case 'tensor':
      return `tensor ${value.value.type}[${value.value.dims.join(',')}]`;
    case 'floats':
      return `[${value.value.map((v) => +v.toPrecision(6)).join(',')}]`;
    case 'float':
      return String(+value.value.toPrecision(6));
    case 'ints':
    case 'strings':
      return `[${value.value.join(',')}]`;
    case 'tensor_desc':
      return `desc ${value.value.dtype}${shapeToString(value.value.shape)}`;
    default:
      return typeof value.value === 'object' ? value.kind : String(value.value);
  }
}

/** A compact, deterministic text form of a graph for golden files: one line per node in topological order. */
export function dumpIr(graph: Graph): string {
  const sorted = topologicalSort(graph);
  const nodes = sorted.ok ? sorted.order : graph.nodes;
  const lines = [`graph ${graph.name}`];
  for (const node of nodes) {
    const d = node.opDesc;
    const inputs = node.inData.map((a) => (a.peer ? `${a.peer.node.name}:${a.peer.index}` : '-')).join(', ');
    const attrs = [...d.attrs.entries()]
      .filter(([k]) => !k.startsWith('_') && !(d.type === CONST && k === 'value'))
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => `${k}=${attrText(v)}`);
    const outs = d.outputDescs.map((o) => `${o.dtype}${shapeToString(o.shape)}`).join(', ');
    const t = d.type === CONST ? constValueOf(node) : undefined;
    const values =
      t && !Array.isArray(t.data)
        ? ` = [${toNumberArray(t)
            .slice(0, 6)
            .map((v) => +v.toPrecision(5))
            .join(',')}${t.data.length > 6 ? ',…' : ''}]`
        : '';
    const type = d.domain === 'ai.onnx' ? d.type : `${d.domain}::${d.type}`;
    lines.push(`  ${d.name}: ${type}(${inputs})${attrs.length ? ` {${attrs.join(', ')}}` : ''} -> ${outs}${values}`);
  }
  return `${lines.join('\n')}\n`;
}
