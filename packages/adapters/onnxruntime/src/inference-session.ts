import type { InferenceSessionFactory, InferenceSession as OrtSession } from 'onnxruntime-common';
import { InferenceSession as CommonInferenceSession } from 'onnxruntime-common';
import { TSGE_BACKEND_NAME, registerTsgeBackend } from './backend.js';
import { DROP_IN_SESSION, withDropInValues } from './drop-in-values.js';
import { type TsgeSessionOptions, mapSessionOptions } from './session-options.js';

/**
 * onnxruntime-node's `InferenceSession` on tsge: the same factory and session class
 * (onnxruntime-common's), with every session on the 'tsge' backend. Programs written for
 * onnxruntime-node switch by changing their import. Beyond onnxruntime-node (which refuses
 * non-tensor values), `run` takes and returns sequences as arrays of Tensors, absent optionals as
 * null, and tensors of types onnxruntime lacks as `TsgeTensorValue`s.
 */
export const InferenceSession: InferenceSessionFactory = {
  create: (async (...args: unknown[]) => {
    registerTsgeBackend();
    const next = [...args];
    // onnxruntime-common reads options at index 1 (path, Uint8Array, ArrayBuffer) or, after a
    // byte offset and length, at index 3; a (buffer, offset) call gets its length made explicit
    let at = 1;
    if (typeof args[1] === 'number') {
      at = 3;
      if (args[2] === undefined && isBuffer(args[0])) next[2] = args[0].byteLength - args[1];
    }
    const given = next[at];
    // anything but an object or nothing is onnxruntime-common's TypeError to raise, unchanged
    if (given === undefined || (typeof given === 'object' && given !== null)) {
      const options = (given ?? {}) as TsgeSessionOptions;
      // rejects providers tsge cannot stand in for before onnxruntime-common resolves them
      mapSessionOptions({ executionProviders: options.executionProviders ?? [] });
      next[at] = { ...options, executionProviders: [TSGE_BACKEND_NAME], [DROP_IN_SESSION]: true };
    }
    const session = await (CommonInferenceSession.create as (...a: unknown[]) => Promise<OrtSession>)(...next);
    // onnxruntime-common's run, with the values it cannot make Tensors of put back (see drop-in-values)
    const run = session.run.bind(session) as (...a: unknown[]) => Promise<OrtSession.ReturnType>;
    return Object.assign(session, { run: async (...a: unknown[]) => withDropInValues(await run(...a)) });
  }) as InferenceSessionFactory['create'],
};

export type InferenceSession = OrtSession;

function isBuffer(value: unknown): value is ArrayBufferLike {
  return value instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && value instanceof SharedArrayBuffer);
}
