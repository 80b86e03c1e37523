import type { Diagnostic, OpRegistry, Shape } from '@tsge/metadef';
import { diagnostic } from '@tsge/metadef';
import { MICROSOFT_RULES } from '../contrib/microsoft.js';
import { EXPERIMENTAL_RULES } from '../upgrade/experimental.js';
import { UPGRADE_RULES } from '../upgrade/rules.js';
import { upgradeNodes } from '../upgrade/upgrade.js';
import { type RawFunction, inlineFunctions } from './functions.js';
import type { RawNode } from './raw-node.js';

export interface TransformContext {
  readonly opsets: ReadonlyMap<string, number>;
  readonly functions: ReadonlyMap<string, RawFunction>;
  readonly diagnostics: Diagnostic[];
  readonly file: string | undefined;
  readonly graphName: string;
  readonly ops: OpRegistry | undefined;
  /** Shapes the model states for values of this graph (inputs, value_info, initializers). */
  readonly shapeOf: (name: string) => Shape | undefined;
  /** Every value name used in the graph so far (fresh names avoid them). */
  readonly usedNames: Set<string>;
}

const RULES = [...MICROSOFT_RULES, ...EXPERIMENTAL_RULES, ...UPGRADE_RULES];

/**
 * Rewrites one graph's nodes into the canonical op set: inlines model-local functions, maps
 * contrib ops, upgrades old opsets; then reports every op the registry lacks (all at once).
 */
export function transformNodes(nodes: RawNode[], ctx: TransformContext): RawNode[] {
  for (const n of nodes) for (const name of [...n.inputs, ...n.outputs]) if (name) ctx.usedNames.add(name);
  const fresh = (hint: string): string => {
    let name = hint;
    for (let i = 1; ctx.usedNames.has(name); i++) name = `${hint}_${i}`;
    ctx.usedNames.add(name);
    return name;
  };
  const location = (n: RawNode): Diagnostic['location'] => ({
    ...(ctx.file !== undefined ? { file: ctx.file } : {}),
    graph: ctx.graphName,
    node: n.name,
    opType: n.opType,
    domain: n.domain,
  });
  const inlined = inlineFunctions(nodes, ctx.functions, {
    fresh,
    report: (n, message) => ctx.diagnostics.push(diagnostic('TSGE-E3003', { reason: message }, location(n))),
  });
  const constantShapes = new Map<string, Shape>();
  for (const n of inlined) {
    const value = n.opType === 'Constant' ? n.attrs.get('value') : undefined;
    if (value?.kind === 'tensor' && n.outputs[0]) constantShapes.set(n.outputs[0], value.value.dims);
  }
  const upgraded = upgradeNodes(
    inlined,
    {
      opsetOf: (n) => n.opset ?? ctx.opsets.get(n.domain) ?? 1,
      fresh,
      shapeOf: (name) => ctx.shapeOf(name) ?? constantShapes.get(name),
      warn: (n, message) => ctx.diagnostics.push(diagnostic('TSGE-E3003', { reason: message }, location(n), 'warning')),
    },
    RULES,
  );
  checkSupport(upgraded, ctx);
  return upgraded;
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
