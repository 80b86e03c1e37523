import type { KernelContextV1, LinearMemory, ParallelRunnerV1 } from '@tsge/metadef';
import type { KernelCall } from '../model/kernel-call.js';

/** What changes from run to run in a call's kernel context: its inputs and where its outputs go. */
export type CallHandlers = Pick<KernelContextV1, 'input' | 'tensor' | 'output' | 'setOutput' | 'runSubgraph'>;
/** What stays: the call's name, op, attributes, counts, memory and tile runner. */
export type CallConstants = Omit<KernelContextV1, keyof CallHandlers>;

interface Kept {
  readonly context: KernelContextV1;
  readonly memory: LinearMemory | undefined;
  readonly parallel: ParallelRunnerV1 | undefined;
  handlers: CallHandlers | undefined;
}
const kept = new WeakMap<KernelCall, Kept>();

/**
 * Runs `compute` with the call's kernel context, the same object on every run (as a static plan's
 * sink workers keep theirs), so kernels that remember a plan per context — a Conv's tiles, a
 * broadcast's rows — reuse it while its shapes and offsets are unchanged, instead of planning on
 * every run. The context reads this run's `handlers`; a run that finds it in use (another run of
 * the model interleaved on this thread) gets a context of its own.
 */
export function withCallContext(
  call: KernelCall,
  constants: CallConstants,
  handlers: CallHandlers,
  compute: (context: KernelContextV1) => void,
): void {
  let entry = kept.get(call);
  if (entry?.handlers) {
    compute({ ...constants, ...handlers });
    return;
  }
  if (!entry || entry.memory !== constants.memory || entry.parallel !== constants.parallel) entry = keep(call, constants);
  entry.handlers = handlers;
  try {
    compute(entry.context);
  } finally {
    entry.handlers = undefined;
  }
}

function keep(call: KernelCall, constants: CallConstants): Kept {
  const current = (): CallHandlers => entry.handlers as CallHandlers;
  const entry: Kept = {
    context: {
      ...constants,
      input: (i) => current().input(i),
      tensor: (i) => current().tensor(i),
      output: (i, dims, dtype) => current().output(i, dims, dtype),
      setOutput: (i, value) => current().setOutput(i, value),
      runSubgraph: (attrName, inputs) => current().runSubgraph(attrName, inputs),
    },
    memory: constants.memory,
    parallel: constants.parallel,
    handlers: undefined,
  };
  kept.set(call, entry);
  return entry;
}
