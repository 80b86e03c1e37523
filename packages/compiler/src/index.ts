// @tsge/compiler public API.
export { compile, builtinPassNames } from './compile.js';
export type { CompileOptions, CompileResult, CompileSummary, CompileProgress, CompileTarget, PassTiming } from './options.js';
export { PassManager, definePass, type PassManagerOptions } from './pass-manager.js';
export { matchAt, findMatches, fusionAsPass, replaceMatchWith } from './fusion/matcher.js';
export { pattern as fusionPattern } from './fusion/patterns.js';
export { builtinFusions } from './fusion/builtin.js';
export { registerFusedOps } from './fusion/fused-ops.js';
export { planMemory, type Buffer as MemoryBuffer, type MemoryPlan, type MemoryPlanInput } from './build/memory-plan.js';
export { memoryBounds, type Lifetime } from './build/memory-bounds.js';
export { planStreams, happensBefore, type StreamPlan, type SyncPoint } from './build/streams.js';
export { defineNodePass, type NodePassSpec, MAX_VISITS_PER_NODE } from './node-pass.js';
