// Function modules the tests reference by specifier (as a flow model or a deployment would).
import type { FlowFunctionV1, FlowValue, JsonValue } from '../src/index.js';

function asFloat(value: FlowValue): Float32Array {
  if (value instanceof Uint8Array) throw new Error('expected a tensor');
  return value.data as Float32Array;
}

/** y = x * params.factor + bias set in init. */
export const scale = (): FlowFunctionV1 => {
  let factor = 1;
  return {
    specVersion: 'v1',
    init(params: Readonly<Record<string, JsonValue>>) {
      factor = Number(params.factor ?? 1);
    },
    proc([x]) {
      const t = x as Exclude<FlowValue, Uint8Array>;
      return [{ type: 'float32', dims: t.dims, data: asFloat(t).map((v) => v * factor) }];
    },
  };
};

/** Adds its two inputs. */
export const add: FlowFunctionV1 = {
  specVersion: 'v1',
  proc([a, b]) {
    const x = asFloat(a as FlowValue);
    const y = asFloat(b as FlowValue);
    const t = a as Exclude<FlowValue, Uint8Array>;
    return [{ type: 'float32', dims: t.dims, data: x.map((v, i) => v + (y[i] as number)) }];
  },
};

/** Throws on transactions whose first element is negative. */
export const failOnNegative: FlowFunctionV1 = {
  specVersion: 'v1',
  proc([x], ctx) {
    if ((asFloat(x as FlowValue)[0] as number) < 0) throw new Error(`negative input in transaction ${ctx.header.transactionId}`);
    return [x];
  },
};

/** Two functions in one point: `upper` takes input 0 (bytes → upper-case bytes), `negate` input 1. */
export const multi: FlowFunctionV1 = {
  specVersion: 'v1',
  procs: {
    upper([text]) {
      return [new TextEncoder().encode(new TextDecoder().decode(text as Uint8Array).toUpperCase()), undefined];
    },
    negate([x]) {
      const t = x as Exclude<FlowValue, Uint8Array>;
      return [undefined, { type: 'float32', dims: t.dims, data: asFloat(t).map((v) => -v) }];
    },
  },
};

/** Splits a bytes message on spaces: one message per word. */
export const splitWords: FlowFunctionV1 = {
  specVersion: 'v1',
  proc([text], ctx) {
    for (const word of new TextDecoder().decode(text as Uint8Array).split(' ')) ctx.emit([new TextEncoder().encode(word)]);
    return undefined;
  },
};

/** Tags its output with which instance ran it (for balancing tests). */
export const whoAmI = (): FlowFunctionV1 => {
  let instance = -1;
  return {
    specVersion: 'v1',
    init(_params, ctx) {
      instance = ctx.instance;
    },
    async proc() {
      await new Promise((r) => setTimeout(r, 1));
      return [{ type: 'int32', dims: [1], data: Int32Array.of(instance) }];
    },
  };
};

/** Passes its input through, after params.delayMs. */
export const slowIdentity = (): FlowFunctionV1 => {
  let delay = 0;
  return {
    specVersion: 'v1',
    init(params) {
      delay = Number(params.delayMs ?? 0);
    },
    async proc([x]) {
      await new Promise((r) => setTimeout(r, delay));
      return [x];
    },
  };
};

/** Not a flow function. */
export const notAFunction = { proc: 1 };

/**
 * Passes its input through, but ends the worker thread it runs on when the input's first element
 * is params.exitOn (process.exit) or params.throwOn (an exception nobody catches). Workers only.
 */
export const crashOn = (): FlowFunctionV1 => {
  let exitOn = Number.NaN;
  let throwOn = Number.NaN;
  return {
    specVersion: 'v1',
    async init(params) {
      const { isMainThread } = await import('node:worker_threads');
      if (isMainThread) throw new Error('crashOn only runs on a worker thread');
      exitOn = Number(params.exitOn);
      throwOn = Number(params.throwOn);
    },
    async proc([x]) {
      const first = asFloat(x as FlowValue)[0];
      if (first === exitOn) process.exit(3);
      if (first === throwOn) {
        setImmediate(() => {
          throw new Error(`uncaught on ${first}`);
        });
        await new Promise(() => {});
      }
      return [x];
    },
  };
};

/** Passes transactions whose first element is even, sends nothing for odd ones. */
export const dropOdd: FlowFunctionV1 = {
  specVersion: 'v1',
  proc([x]) {
    return [(asFloat(x as FlowValue)[0] as number) % 2 === 0 ? x : undefined];
  },
};
