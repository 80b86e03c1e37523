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

/**
 * Runs `compile` with V8 compiling every function of each WebAssembly module it compiles at once
 * (`--no-wasm-lazy-compilation`), then restores lazy compilation. By default a function compiles on
 * its first call, inside the first run that calls it; compiled ahead (a process's initialisation),
 * with eager tier-up its optimised code is ready before any model runs. Process-wide while it runs.
 */
export function compileEagerly<T>(compile: () => T): T {
  let eager = false;
  try {
    setFlagsFromString('--no-wasm-lazy-compilation');
    eager = true;
  } catch {
    // flags refused: compile lazily as usual
  }
  try {
    return compile();
  } finally {
    if (eager) setFlagsFromString('--wasm-lazy-compilation');
  }
}
