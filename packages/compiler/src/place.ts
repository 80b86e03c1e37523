import type { Diagnostic, Graph, KernelRegistry, KernelV1, Node } from '@tsge/metadef';
import { CONST, DATA, NET_OUTPUT, diagnostic } from '@tsge/metadef';

/** Implementation preference per target: the fastest first, the reference kernels always last. */
export function kernelPreference(target: string): readonly string[] {
  return target === 'js' ? ['reference'] : ['wasm-simd', 'reference'];
}

export interface Placement {
  readonly kernelOf: (node: Node) => KernelV1 | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Chooses a kernel for every computing node of the graph and its subgraphs (those run in host
 * mode but still need kernels). A node without a kernel is a diagnostic naming it and its op.
 */
export function placeKernels(graph: Graph, kernels: KernelRegistry, target: string): Placement {
  const chosen = new Map<Node, KernelV1>();
  // root node names are unique; gear plans look kernels up on clones by name
  const byName = new Map<string, KernelV1>();
  const diagnostics: Diagnostic[] = [];
  const preference = kernelPreference(target);
  const graphs = [graph, ...graph.subgraphs.values()];
  for (const g of graphs) {
    for (const node of g.nodes) {
      if (node.type === DATA || node.type === CONST || node.type === NET_OUTPUT) continue;
      const p = node.inData[0]?.peer;
      const dtype = (p ? p.node.opDesc.outputDescs[p.index] : node.opDesc.outputDescs[0])?.dtype;
      const kernel =
        kernels.find(node.type, node.opDesc.domain, dtype, preference) ??
        kernels.find(node.type, node.opDesc.domain, undefined, preference);
      if (!kernel) {
        diagnostics.push(
          diagnostic(
            'TSGE-E4004',
            { op: `${node.opDesc.domain}::${node.type}`, dtype: dtype ?? 'unknown' },
            { graph: g.name, node: node.name, opType: node.type, domain: node.opDesc.domain },
          ),
        );
        continue;
      }
      chosen.set(node, kernel);
      if (g === graph) byName.set(node.name, kernel);
    }
  }
  return { kernelOf: (node) => chosen.get(node) ?? byName.get(node.name), diagnostics };
}
