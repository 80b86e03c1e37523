import { describe, expect, it } from 'vitest';
import { compiledModuleEntries } from './compiled-modules.js';
import { wasmKernelLibrary } from './library.js';

describe('compiledCode.warm', () => {
  it('compiles the main module and every extra module for the memory kind asked, once', () => {
    wasmKernelLibrary.compiledCode?.warm?.(false);
    const keys = new Set(compiledModuleEntries().map(([key]) => key));
    for (const name of ['simd', 'attention', 'layer-norm', 'transpose', 'pointwise', 'int-conv', 'resize-separable']) {
      expect(keys.has(`${name}:u`), name).toBe(true);
      expect(keys.has(`${name}:s`), name).toBe(false);
    }
    const count = compiledModuleEntries().length;
    wasmKernelLibrary.compiledCode?.warm?.(false);
    expect(compiledModuleEntries().length).toBe(count);
    wasmKernelLibrary.compiledCode?.warm?.(true);
    expect(new Set(compiledModuleEntries().map(([key]) => key)).has('attention:s')).toBe(true);
  });
});
