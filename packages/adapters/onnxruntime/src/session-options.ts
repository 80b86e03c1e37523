import type { InferenceSession as OrtSession } from 'onnxruntime-common';
import type { CompileCacheOptions, InferenceSessionOptions } from '@tsge/ge';
import { TsgeError } from '@tsge/ge';

/** onnxruntime's session options plus tsge's own (`tsge.cache`: the on-disk compile cache). */
export interface TsgeSessionOptions extends OrtSession.SessionOptions {
  readonly tsge?: {
    /** Keep compiled `.om` files on disk, keyed by the model's hash and the options. */
    readonly cache?: CompileCacheOptions;
  };
}

export interface MappedOptions {
  readonly session: InferenceSessionOptions;
  readonly profiling: { readonly enabled: boolean; readonly filePrefix: string };
}

/** Execution provider names tsge answers to: it runs on the CPU. */
export const TSGE_PROVIDERS: ReadonlySet<string> = new Set(['tsge', 'cpu']);

const OPT_LEVELS = { disabled: 0, basic: 1, extended: 2, layout: 3, all: 3 } as const;

/**
 * Maps onnxruntime session options to tsge's. Options with no tsge counterpart are either a
 * documented no-op (README: logging, arena) or an error (TSGE-E8201), never silently different.
 */
export function mapSessionOptions(options: TsgeSessionOptions = {}): MappedOptions {
  const load: { threads?: number; profile?: boolean } = {};
  const compile: { optLevel?: 0 | 1 | 2 | 3; streamLimit?: number; disableReuseMemory?: boolean } = {};
  const session: { freeDimensions?: Record<string, number>; cache?: CompileCacheOptions } = {};

  if (options.executionProviders !== undefined && !Array.isArray(options.executionProviders)) {
    invalid('executionProviders', options.executionProviders, 'expected an array of provider names or { name } objects');
  }
  for (const provider of options.executionProviders ?? []) {
    const name = typeof provider === 'string' ? provider : provider?.name;
    if (!TSGE_PROVIDERS.has(String(name))) {
      unsupported(
        'executionProviders',
        `tsge runs models on the CPU (WebAssembly SIMD); execution provider '${String(name)}' is not available`,
      );
    }
  }
  if (options.intraOpNumThreads !== undefined) {
    const threads = nonNegativeInteger('intraOpNumThreads', options.intraOpNumThreads);
    if (threads > 0) load.threads = threads; // 0: onnxruntime's default, one per core, as tsge's
  }
  const mode = options.executionMode ?? 'sequential';
  if (mode !== 'sequential' && mode !== 'parallel') invalid('executionMode', mode, "expected 'sequential' or 'parallel'");
  if (options.interOpNumThreads !== undefined) {
    const streams = nonNegativeInteger('interOpNumThreads', options.interOpNumThreads);
    // onnxruntime uses inter-op threads only in parallel mode; tsge runs independent branches on streams
    if (mode === 'parallel' && streams > 0) compile.streamLimit = streams;
  }
  if (mode === 'parallel' && compile.streamLimit === undefined) compile.streamLimit = 2;
  if (options.graphOptimizationLevel !== undefined) {
    const level = OPT_LEVELS[options.graphOptimizationLevel];
    if (level === undefined)
      invalid('graphOptimizationLevel', options.graphOptimizationLevel, `expected one of ${Object.keys(OPT_LEVELS).join(', ')}`);
    compile.optLevel = level;
  }
  if (options.freeDimensionOverrides !== undefined) {
    const free: Record<string, number> = {};
    for (const [dim, size] of Object.entries(options.freeDimensionOverrides)) {
      if (!Number.isSafeInteger(size) || size < 1) invalid(`freeDimensionOverrides.${dim}`, size, 'expected a positive integer');
      free[dim] = size;
    }
    session.freeDimensions = free;
  }
  if (options.enableMemPattern !== undefined && typeof options.enableMemPattern !== 'boolean') {
    invalid('enableMemPattern', options.enableMemPattern, 'expected a boolean');
  }
  if (options.enableMemPattern === false) compile.disableReuseMemory = true;
  if (options.enableCpuMemArena !== undefined && typeof options.enableCpuMemArena !== 'boolean') {
    invalid('enableCpuMemArena', options.enableCpuMemArena, 'expected a boolean');
  }
  if (options.optimizedModelFilePath !== undefined) {
    unsupported('optimizedModelFilePath', 'tsge compiles to an .om, not to an optimized ONNX file (use tsge.cache or atc for the .om)');
  }
  if (options.enableGraphCapture === true)
    unsupported('enableGraphCapture', 'tsge has no graph capture (its static plans already run as one unit)');
  const location = options.preferredOutputLocation;
  if (location !== undefined) {
    const locations = typeof location === 'string' ? [location] : Object.values(location);
    for (const l of locations)
      if (l !== 'cpu') unsupported('preferredOutputLocation', `tsge returns 'cpu' tensors; '${l}' is not available`);
  }
  if (options.logSeverityLevel !== undefined && ![0, 1, 2, 3, 4].includes(options.logSeverityLevel)) {
    invalid('logSeverityLevel', options.logSeverityLevel, 'expected 0 (verbose) to 4 (fatal)');
  }
  if (options.logVerbosityLevel !== undefined) nonNegativeInteger('logVerbosityLevel', options.logVerbosityLevel);
  if (options.extra !== undefined && Object.keys(options.extra).length > 0) {
    unsupported('extra', `tsge has no session configuration entries (${Object.keys(options.extra).join(', ')})`);
  }
  if (options.enableProfiling !== undefined && typeof options.enableProfiling !== 'boolean') {
    invalid('enableProfiling', options.enableProfiling, 'expected a boolean');
  }
  const enabled = options.enableProfiling === true;
  if (enabled) load.profile = true;
  if (options.tsge?.cache) session.cache = options.tsge.cache;
  return {
    session: {
      ...session,
      ...(Object.keys(compile).length > 0 ? { compile } : {}),
      ...(Object.keys(load).length > 0 ? { load } : {}),
    },
    profiling: { enabled, filePrefix: options.profileFilePrefix ?? 'onnxruntime_profile_' },
  };
}

function nonNegativeInteger(option: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) invalid(option, value, 'expected a non-negative integer');
  return value as number;
}

function unsupported(option: string, reason: string): never {
  throw TsgeError.of('TSGE-E8201', { option, reason });
}

function invalid(option: string, value: unknown, reason: string): never {
  throw TsgeError.of('TSGE-E8202', { option, value: JSON.stringify(value) ?? String(value), reason });
}
