import type { Diagnostic, Graph, GraphPassV1, KernelRegistry, OpRegistry } from '@tsge/metadef';
import {
  CONST,
  DATA,
  NET_OUTPUT,
  TsgeError,
  createTensorDesc,
  diagnostic,
  encodeKernelDescription,
  isStaticShape,
  verifyGraph,
} from '@tsge/metadef';
import type { ExecutionPlan, IoInfo, IoTensorInfo, OmWriteInput } from '@tsge/om';
import { checkPlanIo, writeOm } from '@tsge/om';
import { createKernelRegistryOf } from '@tsge/metadef';
import { jsKernelLibrary } from '@tsge/kernels-js';
import { createDefaultOpRegistry } from '@tsge/ops';
import { gearsOf } from './build/gears.js';
import { isDynamicNode, planGraph } from './build/plan-graph.js';
import { layoutWeights, stripConstValues } from './build/weights.js';
import { graphDumper } from './dump.js';
import { builtinFusionPasses } from './fusion/builtin.js';
import { registerFusedOps } from './fusion/fused-ops.js';
import { autoFusionPass } from './fusion/auto/auto-fusion.js';
import { kernelsOfGraph } from './fusion/auto/kernel-table.js';
import { fusionAsPass } from './fusion/matcher.js';
import type { CompileOptions, CompileResult, CompileSummary } from './options.js';
import { PassManager } from './pass-manager.js';
import { commonSubexpressionPass } from './passes/common-subexpression.js';
import { constantFoldingPass } from './passes/constant-folding.js';
import { customPassesAt } from './passes/custom.js';
import { deadCodePass } from './passes/dead-code.js';
import { inferGraph, inferOne, inferShapesPass, symbolSource } from './passes/infer-shapes.js';
import { layoutChainsPass } from './passes/layout-chains.js';
import { concatProjectionsPass } from './passes/concat-projections.js';
import { packIntWeightsPass } from './passes/pack-int-weights.js';
import { packMatMulWeightsPass } from './passes/pack-matmul-weights.js';
import { recordKernelPlans } from './build/kernel-plans.js';
import { precisionPasses } from './passes/precision-modes.js';
import { removeNoopsPass } from './passes/remove-noops.js';
import { reshapeTargetsPass } from './passes/reshape-targets.js';
import { placeKernels } from './place.js';
import { applyInputShapes, selectOutputs } from './prepare/normalize.js';

/** Names of the built-in passes (for `optimizationSwitch` validation and docs). */
export function builtinPassNames(): string[] {
  const symbols = symbolSource();
  const kernels = createKernelRegistryOf([jsKernelLibrary]);
  const ops = createDefaultOpRegistry();
  return [...optimizePasses(kernels, symbols), ...builtinFusionPasses(ops, kernels), reshapeTargetsPass, autoFusionPass]
    .map((p) => p.name)
    .concat('infer-shapes', 'dead-code-elimination');
}

function optimizePasses(
  kernels: KernelRegistry,
  symbols: (hint?: string) => string,
  onProgress?: CompileOptions['onProgress'],
): GraphPassV1[] {
  const folding = constantFoldingPass(
    kernels,
    symbols,
    onProgress ? (done, total) => onProgress({ stage: 'constant-folding', done, total }) : undefined,
  );
  return [folding, removeNoopsPass, layoutChainsPass, commonSubexpressionPass, deadCodePass];
}

function throwIfErrors(diagnostics: readonly Diagnostic[]): void {
  if (diagnostics.some((d) => d.severity === 'error')) throw TsgeError.fromDiagnostics(diagnostics.filter((d) => d.severity === 'error'));
}

function countNodes(graph: Graph): number {
  let n = graph.nodeCount;
  for (const g of graph.subgraphs.values()) n += g.nodeCount;
  return n;
}

/**
 * Compiles a graph into an .om model: prepare (normalize, infer shapes), optimize (passes and
 * fusion), place (a kernel per node), build (streams, memory, tasks, weights) and serialize.
 * Throws a TsgeError carrying every diagnostic when the graph cannot be compiled.
 */
export async function compile(input: Graph, options: CompileOptions = {}): Promise<CompileResult> {
  let stage = 'prepare';
  try {
    return compileStages(input, options, (s) => {
      stage = s;
    });
  } catch (e) {
    if (TsgeError.isInstance(e)) throw e;
    // a bug or a graph shape no pass anticipated: still a diagnostic, never a bare TypeError
    const reason = e instanceof Error ? e.message : String(e);
    throw TsgeError.of('TSGE-E5001', { pass: stage, reason: `internal error: ${reason}` }, { graph: input.name }, e);
  }
}

function compileStages(input: Graph, options: CompileOptions, onStage: (stage: string) => void): CompileResult {
  const target = options.target ?? 'wasm-simd';
  const level = options.optLevel ?? 3;
  const ops: OpRegistry = options.ops ?? createDefaultOpRegistry();
  const kernels: KernelRegistry = options.kernels ?? createKernelRegistryOf([jsKernelLibrary]);
  registerFusedOps(ops, kernels);
  const symbols = symbolSource();
  const diagnostics: Diagnostic[] = [];
  const stageMilliseconds: Record<string, number> = {};
  const stages = ['prepare', 'optimize', 'place', 'build', 'serialize'];
  let stageStart = performance.now();
  const enter = (stage: string) => {
    onStage(stage);
    stageStart = performance.now();
    options.onProgress?.({ stage, done: stages.indexOf(stage), total: stages.length });
  };
  const leave = (stage: string) => {
    stageMilliseconds[stage] = performance.now() - stageStart;
  };

  const graph = input.clone();
  const nodesBefore = countNodes(graph);
  const fusionPasses = [...builtinFusionPasses(ops, kernels), ...(options.customFusions ?? []).map(fusionAsPass)];
  // generated kernels are specialised to one static shape: gear models keep their ops
  const gearsWanted = (options.dynamicBatchSizes?.length ?? 0) > 0 || (options.dynamicDims?.length ?? 0) > 0;
  const packPass = packMatMulWeightsPass(kernels, target);
  const packIntPass = packIntWeightsPass(kernels, target);
  const known = new Set(
    [
      ...optimizePasses(kernels, symbols),
      ...fusionPasses,
      autoFusionPass,
      concatProjectionsPass,
      packPass,
      packIntPass,
      ...(options.customPasses ?? []),
    ].map((p) => p.name),
  );
  known.add('infer-shapes');
  for (const name of Object.keys(options.optimizationSwitch ?? {}))
    if (!known.has(name)) diagnostics.push(diagnostic('TSGE-E5002', { pass: name }, { option: 'optimization_switch' }));
  if (!graph.outputNode()) diagnostics.push(diagnostic('TSGE-E1007', { count: 0 }, { graph: graph.name }));
  // structural problems (dangling anchors, cycles, duplicate names) are reported before any pass
  diagnostics.push(...verifyGraph(graph));
  throwIfErrors(diagnostics);

  let passCount = 0;
  const manager = new PassManager({
    ops,
    target,
    level,
    switches: options.optimizationSwitch ?? {},
    ...(options.dumpGraphAfter ? { dump: graphDumper(options.dumpGraphAfter, options.dumpDir) } : {}),
    ...(options.verify ? { verify: (g: Graph) => verifyGraph(g, { ops }) } : {}),
    onPass: (name) => options.onProgress?.({ stage: `pass ${name}`, done: ++passCount, total: 0 }),
    onRevisit: (g, nodes) => {
      for (const n of nodes) inferOne(g, n, ops, symbols);
    },
  });

  // prepare
  enter('prepare');
  if (options.inputShapes) diagnostics.push(...applyInputShapes(graph, options.inputShapes));
  if (options.outNodes?.length) diagnostics.push(...selectOutputs(graph, options.outNodes));
  throwIfErrors(diagnostics);
  manager.run(graph, customPassesAt(options.customPasses, 'before-infershape'), 'prepare');
  manager.run(graph, [inferShapesPass(symbols)], 'prepare');
  manager.run(graph, customPassesAt(options.customPasses, 'after-infershape'), 'prepare');
  throwIfErrors(manager.diagnostics);
  leave('prepare');

  // optimize
  enter('optimize');
  const precision = precisionPasses(graph, options.precisionMode, target, kernels);
  manager.run(graph, precision.beforeOptimize, 'optimize');
  manager.run(graph, optimizePasses(kernels, symbols, options.onProgress), 'optimize');
  manager.run(graph, fusionPasses, 'optimize');
  manager.run(graph, customPassesAt(options.customPasses, 'after-builtin-fusion'), 'optimize');
  // after fusion, so Conv+BatchNorm folds in float32 first
  manager.run(graph, precision.afterFusion, 'optimize');
  // after fusion: dims are traced through the fused LayerNormalization, MatMul and Attention nodes
  manager.run(graph, [reshapeTargetsPass, constantFoldingPass(kernels, symbols), deadCodePass], 'optimize');
  // projections joined while their biases are still inputs (auto-fusion would make them epilogues)
  manager.run(graph, [concatProjectionsPass], 'optimize');
  // last of the rewrites: what the pattern fusions and fp16 left elementwise becomes generated kernels
  if (!gearsWanted) manager.run(graph, [autoFusionPass], 'optimize');
  // after every rewrite that reads MatMul weights: their panels are what the CPU kernels stream
  manager.run(graph, [packPass, packIntPass], 'optimize');
  manager.run(graph, customPassesAt(options.customPasses, 'after-graph-optimize'), 'optimize');
  diagnostics.push(...inferGraph(graph, ops, symbols));
  throwIfErrors([...diagnostics, ...manager.diagnostics]);
  leave('optimize');

  // place
  enter('place');
  const placement = placeKernels(graph, kernels, target);
  throwIfErrors(placement.diagnostics);
  // static shapes: each kernel's choices (implementation, tiles, thread split) go into the .om
  if (!gearsWanted)
    manager.counters['kernel-plans'] = recordKernelPlans(graph, placement.kernelOf, Math.max(1, Math.floor(options.threads ?? 1)));
  leave('place');

  // build
  enter('build');
  // one stream by default: heavy kernels split into tiles across all threads, and on the bench models a
  // single stream measured as fast as two or faster (no cross-thread event waits)
  const streamLimit = options.enableSingleStream ? 1 : Math.max(1, options.streamLimit ?? 1);
  // descriptions move to KERNELS; each generated-kernel node keeps the index of its description
  const kernelDescriptions = kernelsOfGraph(graph);
  const weights = layoutWeights(graph);
  const gearResult = gearsOf(graph, options.dynamicBatchSizes, options.dynamicDims);
  throwIfErrors(gearResult.diagnostics);
  const common = {
    streamLimit,
    disableReuse: options.disableReuseMemory ?? false,
    weights: weights.slots,
    weightsBytes: weights.deviceBytes,
    kernelOf: placement.kernelOf,
  };
  const plans: ExecutionPlan[] = [];
  const base = planGraph(graph, { ...common, gear: null, annotate: true });
  if (gearResult.gears.length === 0) plans.push(base.plan);
  for (const gear of gearResult.gears) {
    const copy = graph.clone();
    for (const data of copy.inputNodes()) {
      const shape = gear[data.name];
      if (!shape) continue;
      const desc = createTensorDesc(data.opDesc.outputDescs[0]?.dtype ?? 'float32', shape);
      data.opDesc.outputDescs[0] = desc;
    }
    const gearDiagnostics = inferGraph(copy, ops, symbols);
    throwIfErrors(gearDiagnostics);
    plans.push(planGraph(copy, { ...common, gear, annotate: false }).plan);
  }
  manager.run(graph, customPassesAt(options.customPasses, 'after-stream-assign'), 'build');
  const dynamic =
    gearResult.gears.length === 0 &&
    (graph.inputNodes().some((d) => !isStaticShape(d.opDesc.outputDescs[0]?.shape ?? [-2])) ||
      graph.nodes.some((n) => n.type !== DATA && n.type !== CONST && n.type !== NET_OUTPUT && isDynamicNode(n)));
  const ioInfo = ioInfoOf(graph);
  // the reader's rule, applied where the plan is made: a graph output left without a place (say, by
  // a node with more outputs than its op has) is the compiler's error, not a load-time surprise
  for (const [index, plan] of plans.entries()) {
    const problem = checkPlanIo(plan, ioInfo, index);
    if (problem) throw TsgeError.of('TSGE-E5003', { reason: problem });
  }
  stripConstValues(graph, weights.slots);
  leave('build');

  // serialize
  enter('serialize');
  const model: OmWriteInput = {
    modelName: options.modelName ?? graph.name,
    target,
    flags: { dynamic, gears: gearResult.gears.length > 0 },
    graph,
    weights: weights.bytes,
    taskInfo: { version: 1, plans, dynamic, ...(weights.storage ? { weightStorage: weights.storage } : {}) },
    kernels: [],
    kernelDescriptions,
    ioInfo,
  };
  const om = writeOm(model);
  leave('serialize');
  options.onProgress?.({ stage: 'done', done: stages.length, total: stages.length });

  const first = plans[0] as ExecutionPlan;
  const fusionNames = new Set([...fusionPasses, autoFusionPass].map((p) => p.name));
  const fusions: Record<string, number> = {};
  for (const [name, value] of Object.entries(manager.counters)) if (fusionNames.has(name)) fusions[name] = value;
  const summary: CompileSummary = {
    nodesBefore,
    nodesAfter: countNodes(graph),
    fusions,
    counters: { ...manager.counters },
    passes: manager.timings,
    streams: first.streams.filter((s) => s.tasks.length > 0).length,
    events: first.eventCount,
    memory: first.memory,
    weightsBytes: weights.bytes.length,
    kernelsBytes: kernelDescriptions.reduce((sum, d) => sum + encodeKernelDescription(d).length * 4, 0),
    omBytes: om.length,
    stageMilliseconds,
    gears: gearResult.gears.length,
    dynamic,
  };
  return { om, model, summary, diagnostics: [...diagnostics, ...manager.diagnostics] };
}

function ioInfoOf(graph: Graph): IoInfo {
  const info = (name: string, d: ReturnType<typeof createTensorDesc> | undefined): IoTensorInfo => ({
    name,
    dtype: d?.dtype ?? 'float32',
    shape: [...(d?.shape ?? [-2])],
    ...(d?.valueKind && d.valueKind !== 'tensor' ? { kind: d.valueKind } : {}),
  });
  const net = graph.outputNode();
  return {
    version: 1,
    inputs: graph.inputNodes().map((n) => info(n.name, n.opDesc.outputDescs[0])),
    outputs: (net?.inData ?? []).map((a, i) =>
      info(net?.opDesc.inputNames[i] ?? `output_${i}`, a.peer ? a.peer.node.opDesc.outputDescs[a.peer.index] : undefined),
    ),
  };
}
