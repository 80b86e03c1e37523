import { compileExtraModules } from './extra-modules.js';
import { hasWasmSimd, simdModule } from './kernel-modules.js';

/**
 * The library's `compiledCode.warm`: emits and compiles the main kernel module and every extra
 * module for shared or unshared memory on this thread, so that a process's first load and first
 * run compile none of them (a model's generated kernels are still compiled at their load).
 */
export function warmCompiledCode(shared: boolean): void {
  if (!hasWasmSimd() || (shared && typeof SharedArrayBuffer === 'undefined')) return;
  simdModule(shared);
  compileExtraModules(shared);
}
