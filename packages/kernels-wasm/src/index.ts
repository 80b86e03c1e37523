// @tsge/kernels-wasm: WebAssembly SIMD kernels generated at load time by a small emitter (no toolchain).
export { wasmKernelLibrary } from './library.js';
export { hasWasmSimd, hasRelaxedSimd } from './kernel-modules.js';
