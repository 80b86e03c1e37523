import { availableParallelism } from 'node:os';
import { type CompileOptions, type CompileResult, compile } from '@tsge/compiler';
import { type Executor, type LoadModelOptions as LoadOptions, loadModel as loadExecutor } from '@tsge/executor';
import type { Graph } from '@tsge/metadef';
import { defaultRegistries } from './registries.js';

export type BuildOptions = Omit<CompileOptions, 'ops' | 'kernels'>;

/** Compiles a graph to `.om` bytes (the offline path that `atc` uses), with its summary. */
export async function compileModel(graph: Graph, options: BuildOptions = {}): Promise<CompileResult> {
  const { ops, kernels } = defaultRegistries();
  // kernel plans split work for the executor's default thread count on this machine
  return compile(graph, { threads: availableParallelism(), ...options, ops, kernels });
}

/** Compiles a graph to `.om` bytes. */
export async function buildModel(graph: Graph, options: BuildOptions = {}): Promise<Uint8Array> {
  return (await compileModel(graph, options)).om;
}

/** Loads an `.om` (path or bytes) onto the CPU device and returns a runnable model. */
export async function loadModel(source: string | Uint8Array, options: LoadOptions = {}): Promise<Executor> {
  return loadExecutor(source, options);
}
