import type { compileModel } from '@tsge/ge';
import type { OmModel } from '@tsge/om';

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
    `weights: ${formatBytes(model.weights.length)}, kernels: ${model.kernels.length}, graph nodes: ${model.graph.nodeCount}`,
  ];
  model.taskInfo.plans.forEach((p, i) => {
    const tasks = p.streams.reduce((n, s) => n + s.tasks.filter((t) => t.kind === 'kernel').length, 0);
    const gear = p.gear ? ` gear ${JSON.stringify(p.gear)}` : '';
    lines.push(
      `plan ${i}${gear}: ${tasks} kernel tasks on ${p.streams.length} streams, ${p.eventCount} events, arena ${formatBytes(p.arenaBytes)} (no-reuse ${formatBytes(p.memory.noReuseBytes)}, lower bound ${formatBytes(p.memory.lowerBoundBytes)})`,
    );
  });
  return `${lines.join('\n')}\n`;
}
