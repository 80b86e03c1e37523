import { setFlagsFromString } from 'node:v8';

let applied = false;

/**
 * Asks V8 to optimise WebAssembly functions right after their baseline compile instead of after
 * they have run hot for a while (`--no-wasm-dynamic-tiering`). Kernels then reach full speed on
 * the second run of a model rather than after about eight (measured on the PP-OCR recogniser).
 * Process-wide and idempotent; affects modules compiled afterwards. Returns whether it applied.
 */
export function enableEagerWasmTierUp(): boolean {
  if (applied) return true;
  try {
    setFlagsFromString('--no-wasm-dynamic-tiering');
    applied = true;
  } catch {
    applied = false;
  }
  return applied;
}
