import type { HostTensor, ParseInput } from '@tsge/metadef';
import { TsgeError } from '@tsge/metadef';
import { OnnxProblem, malformed } from '../internal/problem.js';
import type { ISparseTensorProto, ITensorProto } from '../internal/proto.js';
import { decodeTensor, densifySparse, rawByteLength, readDims, tensorDataType } from '../tensor/decode-tensor.js';

/** Rejects external-data locations that could leave the model's folder. */
export function checkExternalPath(location: string): void {
  const escapes =
    location === '' ||
    location.startsWith('/') ||
    location.startsWith('\\') ||
    /^[a-zA-Z]:/.test(location) ||
    location.includes('\0') ||
    location.split(/[\\/]/).some((part) => part === '..');
  if (escapes) throw new OnnxProblem('TSGE-E3004', { path: JSON.stringify(location) });
}

type SideFiles = Pick<ParseInput, 'readRelative' | 'readRange'>;

/**
 * Decodes tensors, reading external data through `readRange` (only the bytes of each tensor) or,
 * when the host offers only `readRelative`, one whole read per side file.
 */
export class TensorLoader {
  private readonly files = new Map<string, Promise<Uint8Array>>();
  private readonly readRelative: SideFiles['readRelative'];
  private readonly readRange: SideFiles['readRange'];

  constructor(sideFiles: SideFiles = {}) {
    this.readRelative = sideFiles.readRelative;
    this.readRange = sideFiles.readRange;
  }

  async load(proto: ITensorProto): Promise<HostTensor> {
    if (proto.dataLocation !== 1) return decodeTensor(proto);
    return decodeTensor(proto, await this.external(proto));
  }

  async loadSparse(sparse: ISparseTensorProto): Promise<HostTensor> {
    if (!sparse.values || !sparse.indices) throw malformed('sparse tensor lacks values or indices');
    return densifySparse(sparse, await this.load(sparse.values), await this.load(sparse.indices));
  }

  private async external(proto: ITensorProto): Promise<Uint8Array> {
    const entries = new Map<string, string>();
    for (const e of proto.externalData ?? []) entries.set(e.key ?? '', e.value ?? '');
    const location = entries.get('location');
    if (location === undefined) throw malformed(`tensor ${proto.name ?? ''} has external data without a location`);
    checkExternalPath(location);
    const offset = Number(entries.get('offset') ?? '0');
    const dtype = tensorDataType(proto.dataType);
    const dims = readDims(proto.dims as unknown[]);
    let count = 1;
    for (const d of dims) count *= d;
    const expected = rawByteLength(dtype, count);
    const length = entries.has('length') ? Number(entries.get('length')) : expected;
    if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(length) || length < 0) {
      throw malformed(`tensor ${proto.name ?? ''} has invalid external offset/length`);
    }
    const failure = (error: unknown): Error =>
      // the host's own coded errors (a path leaving the folder, a FIFO, a short file) keep their code
      TsgeError.isInstance(error)
        ? error
        : new OnnxProblem('TSGE-E3001', {
            reason: `external data file ${location}: ${error instanceof Error ? error.message : String(error)}`,
          });
    if (this.readRange) {
      let bytes: Uint8Array;
      try {
        bytes = await this.readRange(location, offset, length);
      } catch (error) {
        throw failure(error);
      }
      if (bytes.length !== length) throw malformed(`external data of ${proto.name ?? ''} lies beyond the end of ${location}`);
      return bytes;
    }
    if (!this.readRelative)
      throw new OnnxProblem('TSGE-E3001', {
        reason: `tensor ${proto.name ?? ''} has external data, but the model was given as bytes without a folder`,
      });
    let pending = this.files.get(location);
    if (!pending) {
      pending = this.readRelative(location);
      this.files.set(location, pending);
    }
    let file: Uint8Array;
    try {
      file = await pending;
    } catch (error) {
      throw failure(error);
    }
    if (offset + length > file.length) throw malformed(`external data of ${proto.name ?? ''} lies beyond the end of ${location}`);
    return file.subarray(offset, offset + length);
  }
}
