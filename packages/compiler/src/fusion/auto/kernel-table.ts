import type { Graph, KernelDescription } from '@tsge/metadef';
import { TSGE_DOMAIN, attr, decodeKernelDescription } from '@tsge/metadef';

/**
 * Moves every generated kernel's description out of its node into the model's kernel table (the
 * .om's KERNELS partition): the node keeps attribute `kernel`, the index. Equal descriptions
 * (the same chain on the same shapes) share one entry. Generated kernels are the tsge-domain nodes
 * with a `description`: FusedElementwise, and FusedConv's epilogue.
 */
export function kernelsOfGraph(graph: Graph): KernelDescription[] {
  const table: KernelDescription[] = [];
  const index = new Map<string, number>();
  for (const node of graph.nodes) {
    if (node.opDesc.domain !== TSGE_DOMAIN) continue;
    const words = node.opDesc.attrs.get('description');
    if (words?.kind !== 'ints') continue;
    const key = words.value.join(',');
    let i = index.get(key);
    if (i === undefined) {
      i = table.push(decodeKernelDescription(words.value, node.name, { runtimeSized: true })) - 1;
      index.set(key, i);
    }
    node.opDesc.attrs.delete('description');
    node.opDesc.attrs.set('kernel', attr.int(i));
  }
  return table;
}
