import type { Graph, RuntimeValue } from '@tsge/metadef';

/** Runs a parsed model on named feeds; one per engine (interpreter, pipeline). */
export interface Engine {
  readonly name: string;
  /** Prepares a model; `run` takes inputs by Data index and returns outputs in NetOutput order. */
  prepare(graph: Graph, modelBytes: Uint8Array, modelPath: string): Promise<PreparedModel>;
}

export interface PreparedModel {
  run(inputs: readonly (RuntimeValue | undefined)[], inputNames: readonly string[]): Promise<(RuntimeValue | undefined)[]>;
  release(): Promise<void>;
}
