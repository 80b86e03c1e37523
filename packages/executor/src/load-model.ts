import { readFile, stat } from 'node:fs/promises';
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
    bytes = await readModelFile(source);
  } else {
    bytes = source;
  }
  // static plans whose tasks carry their attributes never need MODEL_DEF decoded
  const { model, diagnostics } = readOm(bytes, { lazyGraph: true, ...(fileName !== undefined ? { fileName } : {}) });
  if (!model) throw TsgeError.fromDiagnostics(diagnostics);
  return openModel(model, options);
}

/**
 * A missing file is TSGE-E7003; a directory, FIFO or device (reading one would fail, block or never
 * end) and any other file-system failure are TSGE-E7050 naming the path.
 */
async function readModelFile(source: string): Promise<Uint8Array> {
  const fail = (reason: string, error?: unknown): never => {
    throw TsgeError.of('TSGE-E7050', { action: 'read', path: source, reason }, { file: source }, error);
  };
  try {
    const info = await stat(source);
    if (info.isDirectory()) fail('it is a directory');
    if (!info.isFile()) fail('it is not a regular file (a FIFO, socket or device)');
    return new Uint8Array(await readFile(source));
  } catch (error) {
    if (TsgeError.isInstance(error)) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw TsgeError.of('TSGE-E7003', { path: source }, { file: source }, error);
    return fail(error instanceof Error ? error.message : String(error), error);
  }
}
