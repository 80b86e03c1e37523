import { readFile } from 'node:fs/promises';
import { TsgeError } from '@tsge/metadef';
import { readOm } from '@tsge/om';
import { openModel } from './open-model.js';
import type { Executor, LoadModelOptions } from './options.js';

/**
 * Loads an `.om` model (bytes or a file path), validates it, places its weights once, binds its
 * kernels and starts the workers. Problems in the file are a TsgeError carrying its diagnostics.
 */
export async function loadModel(source: Uint8Array | string, options: LoadModelOptions = {}): Promise<Executor> {
  let bytes: Uint8Array;
  let fileName: string | undefined;
  if (typeof source === 'string') {
    fileName = source;
    try {
      bytes = new Uint8Array(await readFile(source));
    } catch (error) {
      throw TsgeError.of('TSGE-E7003', { path: source }, { file: source }, error);
    }
  } else {
    bytes = source;
  }
  // static plans whose tasks carry their attributes never need MODEL_DEF decoded
  const { model, diagnostics } = readOm(bytes, { lazyGraph: true, ...(fileName !== undefined ? { fileName } : {}) });
  if (!model) throw TsgeError.fromDiagnostics(diagnostics);
  return openModel(model, options);
}
