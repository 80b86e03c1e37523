import { KERNEL_PLAN_ATTRS, type OmModel, type compileModel, describeKernelPlan } from '@tsge/ge';
import { type KernelDescription, KOp, KernelKind, TSGE_DOMAIN } from '@tsge/metadef';

const OP_NAMES = new Map<number, string>(Object.entries(KOp).map(([name, code]) => [code, name]));

/** One line per generated kernel: kind, shape, inputs (strides; 0 = broadcast), the expression's op codes. */
function kernelLines(descriptions: readonly KernelDescription[]): string[] {
  return descriptions.map((d, i) => {
    const inputs = d.inputs.map((x) => `[${x.strides.join(',')}]`).join(' ');
    const ops = d.instructions.map((ins) => OP_NAMES.get(ins.op) ?? String(ins.op)).join(' ');
    const kind = d.kind === KernelKind.rowReduction ? 'row-reduction' : 'elementwise';
    return `  kernel ${i}: ${kind} float32[${d.shape.join(',')}], ${d.inputs.length} inputs (strides ${inputs}), ${d.constants.length} constants, ${d.instructions.length} ops: ${ops}`;
  });
}

/** One line per fused group: the generated-kernel node (FusedElementwise, FusedConv), its kernel and the nodes it replaced. */
function groupLines(model: OmModel): string[] {
  const lines: string[] = [];
  for (const node of model.graph.nodes) {
    const kernel = node.opDesc.attrs.get('kernel');
    if (node.opDesc.domain !== TSGE_DOMAIN || kernel?.kind !== 'int') continue;
    const fused = node.opDesc.attrs.get('fused_nodes');
    const names = fused?.kind === 'strings' ? fused.value.join(', ') : node.type === 'FusedElementwise' ? '?' : node.name;
    // a FusedConv's kernel is its epilogue
    const role = node.type === 'FusedElementwise' ? '' : ` ${node.type} epilogue`;
    lines.push(`  ${node.name} (kernel ${kernel.value}${role}): ${names}`);
  }
  return lines;
}

/** One line per kernel plan the compiler recorded (conv, matmul, pool: path, tiles, threads). */
function planLines(model: OmModel): string[] {
  const lines: string[] = [];
  for (const node of model.graph.nodes)
    for (const name of KERNEL_PLAN_ATTRS) {
      const plan = node.opDesc.attrs.get(name);
      if (plan?.kind === 'ints') lines.push(`  ${node.name} (${node.type}): ${describeKernelPlan(name, plan.value)}`);
    }
  return lines;
}

type CompileSummary = Awaited<ReturnType<typeof compileModel>>['summary'];

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
}

/** The end-of-compile summary atc prints on stderr. */
export function formatSummary(s: CompileSummary, output: string, milliseconds: number): string {
  const fusions = Object.entries(s.fusions).map(([k, v]) => `${k} ×${v}`);
  const counters = Object.entries(s.counters)
    .filter(([k]) => !(k in s.fusions))
    .map(([k, v]) => `${k} ${v}`);
  const ratio = s.memory.lowerBoundBytes > 0 ? (s.memory.arenaBytes / s.memory.lowerBoundBytes).toFixed(3) : '-';
  const stages = Object.entries(s.stageMilliseconds).map(([k, v]) => `${k} ${v.toFixed(0)} ms`);
  return [
    `[atc] wrote ${output} (${formatBytes(s.omBytes)}) in ${milliseconds.toFixed(0)} ms`,
    `[atc]   nodes: ${s.nodesBefore} → ${s.nodesAfter}`,
    `[atc]   fusions: ${fusions.length ? fusions.join(', ') : 'none'}`,
    `[atc]   passes: ${counters.length ? counters.join(', ') : 'no changes'}`,
    `[atc]   streams: ${s.streams}, events: ${s.events}${s.gears ? `, gears: ${s.gears}` : ''}${s.dynamic ? ', dynamic' : ''}`,
    `[atc]   memory: arena ${formatBytes(s.memory.arenaBytes)}, no-reuse ${formatBytes(s.memory.noReuseBytes)}, lower bound ${formatBytes(s.memory.lowerBoundBytes)} (arena/bound ${ratio})`,
    `[atc]   weights: ${formatBytes(s.weightsBytes)}`,
    `[atc]   time: ${stages.join(', ')}`,
    '',
  ].join('\n');
}

/** `atc --mode=6`: what an .om holds. */
export function formatOmSummary(model: OmModel, path: string): string {
  const h = model.header;
  const lines = [
    `${path}: tsge .om v${h.formatVersion}, model ${h.modelName}, target ${h.target}${h.flags.dynamic ? ', dynamic' : ''}${h.flags.gears ? ', gears' : ''}`,
    `inputs:  ${model.ioInfo.inputs.map((i) => `${i.name} ${i.dtype}[${i.shape.join(',')}]`).join('; ')}`,
    `outputs: ${model.ioInfo.outputs.map((i) => `${i.name} ${i.dtype}[${i.shape.join(',')}]`).join('; ')}`,
    `weights: ${formatBytes(model.weights.length)}, kernels: ${model.kernels.length} WebAssembly, ${model.kernelDescriptions?.length ?? 0} generated, graph nodes: ${model.graph.nodeCount}`,
  ];
  const descriptions = model.kernelDescriptions ?? [];
  if (descriptions.length > 0) {
    lines.push('generated kernels:', ...kernelLines(descriptions));
    const groups = groupLines(model);
    lines.push(`fused groups: ${groups.length}`, ...groups);
  }
  const plans = planLines(model);
  if (plans.length > 0) lines.push(`kernel plans: ${plans.length}`, ...plans);
  model.taskInfo.plans.forEach((p, i) => {
    const tasks = p.streams.reduce((n, s) => n + s.tasks.filter((t) => t.kind === 'kernel').length, 0);
    const gear = p.gear ? ` gear ${JSON.stringify(p.gear)}` : '';
    lines.push(
      `plan ${i}${gear}: ${tasks} kernel tasks on ${p.streams.length} streams, ${p.eventCount} events, arena ${formatBytes(p.arenaBytes)} (no-reuse ${formatBytes(p.memory.noReuseBytes)}, lower bound ${formatBytes(p.memory.lowerBoundBytes)})`,
    );
  });
  return `${lines.join('\n')}\n`;
}
