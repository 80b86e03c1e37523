import type { CompileResult } from '@tsge/compiler';
import type { Executor, LoadModelOptions as LoadOptions } from '@tsge/executor';
import type { Graph, RuntimeValue } from '@tsge/metadef';
import { TsgeError } from '@tsge/metadef';
import { type BuildOptions, compileModel, loadModel } from './model.js';

export interface SessionOptions {
  /** Options for every graph's compilation (per-graph options override them). */
  readonly compile?: BuildOptions;
  readonly load?: LoadOptions;
}

interface Entry {
  readonly graph: Graph;
  readonly options: BuildOptions;
  compiled?: CompileResult;
  executor?: Executor;
}

/**
 * The online path (GE's Session): graphs are added by id, compiled in process and run on the
 * executor. `runGraph` compiles on first use.
 */
export class Session {
  private readonly graphs = new Map<number, Entry>();
  private readonly options: SessionOptions;
  private released = false;

  constructor(options: SessionOptions = {}) {
    this.options = options;
  }

  addGraph(id: number, graph: Graph, options: BuildOptions = {}): void {
    this.check();
    if (this.graphs.has(id)) throw TsgeError.of('TSGE-E8001', { message: `graph id ${id} is already added` });
    this.graphs.set(id, { graph, options: { ...this.options.compile, ...options } });
  }

  async removeGraph(id: number): Promise<void> {
    const entry = this.graphs.get(id);
    this.graphs.delete(id);
    await entry?.executor?.release();
  }

  /** Compiles graph `id` to an `.om` in memory and loads it; returns the compile summary. */
  async compileGraph(id: number): Promise<CompileResult['summary']> {
    const entry = this.entry(id);
    if (!entry.compiled) {
      entry.compiled = await compileModel(entry.graph, entry.options);
      entry.executor = await loadModel(entry.compiled.om, this.options.load ?? {});
    }
    return entry.compiled.summary;
  }

  async runGraph(id: number, inputs: Readonly<Record<string, RuntimeValue>>): Promise<Record<string, RuntimeValue>> {
    const entry = this.entry(id);
    if (!entry.executor) await this.compileGraph(id);
    return (entry.executor as Executor).run(inputs);
  }

  /** Frees every loaded graph. */
  async release(): Promise<void> {
    this.released = true;
    const entries = [...this.graphs.values()];
    this.graphs.clear();
    await Promise.all(entries.map((e) => e.executor?.release()));
  }

  private entry(id: number): Entry {
    this.check();
    const entry = this.graphs.get(id);
    if (!entry) throw TsgeError.of('TSGE-E8001', { message: `graph id ${id} was not added` });
    return entry;
  }
  private check(): void {
    if (this.released) throw TsgeError.of('TSGE-E6006');
  }
}
