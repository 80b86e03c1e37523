import type { Diagnostic, Graph, GraphPassV1, Node, OpRegistry, OptLevel, PassContext } from '@tsge/metadef';
import { TsgeError, diagnostic } from '@tsge/metadef';
import type { PassTiming } from './options.js';

export interface PassManagerOptions {
  readonly ops: OpRegistry;
  readonly target: string;
  readonly level: OptLevel;
  readonly switches?: Readonly<Record<string, boolean>>;
  readonly dump?: (graph: Graph, passName: string) => void;
  readonly onPass?: (name: string) => void;
  /** Called for nodes a pass asked to revisit (the compiler re-infers their shapes). */
  readonly onRevisit?: (graph: Graph, nodes: ReadonlySet<Node>) => void;
  /** Checks the graph after each pass; returned errors are reported against the pass. */
  readonly verify?: (graph: Graph) => readonly Diagnostic[];
}

/** How many times a pass reruns while it keeps asking for revisits (bounds a fixpoint). */
const MAX_REVISIT_ROUNDS = 4;

/**
 * Runs named passes in order: a pass runs when its level ≤ the optimization level, unless a switch
 * turns it off (or on). Each pass is timed; diagnostics and counters are collected across passes.
 */
export class PassManager {
  readonly timings: PassTiming[] = [];
  readonly diagnostics: Diagnostic[] = [];
  readonly counters: Record<string, number> = {};
  private readonly options: PassManagerOptions;

  constructor(options: PassManagerOptions) {
    this.options = options;
  }

  enabled(pass: Pick<GraphPassV1, 'name' | 'level'>): boolean {
    const forced = this.options.switches?.[pass.name];
    if (forced !== undefined) return forced;
    return pass.level <= this.options.level;
  }

  run(graph: Graph, passes: readonly GraphPassV1[], stage: string): boolean {
    let anyChange = false;
    for (const pass of passes) {
      if (!this.enabled(pass)) continue;
      this.options.onPass?.(pass.name);
      const started = performance.now();
      let changed = false;
      for (let round = 0; round < MAX_REVISIT_ROUNDS; round++) {
        const revisit = new Set<Node>();
        const ctx = this.context(revisit);
        try {
          changed = pass.run(graph, ctx).changed || changed;
        } catch (e) {
          if (TsgeError.isInstance(e)) this.diagnostics.push(...e.diagnostics);
          else this.diagnostics.push(diagnostic('TSGE-E5001', { pass: pass.name, reason: e instanceof Error ? e.message : String(e) }));
          break;
        }
        for (const n of revisit) if (n.graph === undefined) revisit.delete(n);
        if (revisit.size === 0) break;
        this.options.onRevisit?.(graph, revisit);
      }
      this.timings.push({ name: pass.name, stage, milliseconds: performance.now() - started, changed });
      anyChange ||= changed;
      for (const d of this.options.verify?.(graph) ?? [])
        if (d.severity === 'error')
          this.diagnostics.push(diagnostic('TSGE-E5001', { pass: pass.name, reason: `left an invalid graph: ${d.message}` }, d.location));
      this.options.dump?.(graph, pass.name);
    }
    return anyChange;
  }

  private context(revisit: Set<Node>): PassContext {
    return {
      ops: this.options.ops,
      target: this.options.target,
      level: this.options.level,
      report: (d) => this.diagnostics.push(d),
      revisit: (node) => revisit.add(node),
      count: (name, by = 1) => {
        this.counters[name] = (this.counters[name] ?? 0) + by;
      },
    };
  }
}

/** Builds a graph pass. */
export function definePass(spec: Omit<GraphPassV1, 'specVersion'>): GraphPassV1 {
  return { specVersion: 'v1', ...spec };
}
