import type { DeviceErrorV1 } from '@tsge/metadef';
import { type WasmMemory, wasm } from '../wasm.js';

export const PAGE_BYTES = 65536;
/** wasm32 addresses at most 4 GiB. */
export const MAX_PAGES = 65536;

/** The memory cannot grow to what is asked (the executor reports it as TSGE-E6005 with these sizes). */
export class DeviceMemoryError extends RangeError implements DeviceErrorV1 {
  readonly deviceError = 'out-of-memory';
  readonly code = 'TSGE-E6005';
  readonly needed: number;
  readonly limit: number;
  constructor(needed: number, limit: number) {
    super(`TSGE-E6005 error: the model needs ${needed} bytes of device memory; the limit is ${limit}`);
    this.name = 'DeviceMemoryError';
    this.needed = needed;
    this.limit = limit;
  }
}

export interface DeviceMemoryOptions {
  /** Shared memory (a SharedArrayBuffer) so worker threads can use it; needs a maximum. */
  readonly shared: boolean;
  readonly initialBytes?: number;
  /** Upper bound; shared memory reserves it up front, so keep it close to what a model needs. */
  readonly maximumBytes?: number;
}

export interface DeviceMemory {
  readonly memory: WasmMemory;
  readonly shared: boolean;
  readonly maximumBytes: number;
  /** Grows the memory so that bytes [0, endByte) exist; throws DeviceMemoryError beyond the maximum. */
  ensureCapacity(endByte: number): void;
}

const pagesFor = (bytes: number): number => Math.ceil(bytes / PAGE_BYTES);

export function createDeviceMemory(options: DeviceMemoryOptions): DeviceMemory {
  const maximumPages = Math.min(MAX_PAGES, Math.max(1, pagesFor(options.maximumBytes ?? MAX_PAGES * PAGE_BYTES)));
  const initialPages = Math.min(maximumPages, Math.max(1, pagesFor(options.initialBytes ?? PAGE_BYTES)));
  const memory = options.shared
    ? new wasm.Memory({ initial: initialPages, maximum: maximumPages, shared: true })
    : new wasm.Memory({ initial: initialPages, maximum: maximumPages });
  const maximumBytes = maximumPages * PAGE_BYTES;
  return {
    memory,
    shared: options.shared,
    maximumBytes,
    ensureCapacity(endByte) {
      const have = memory.buffer.byteLength;
      if (endByte <= have) return;
      if (endByte > maximumBytes) throw new DeviceMemoryError(endByte, maximumBytes);
      memory.grow(pagesFor(endByte - have));
    },
  };
}
