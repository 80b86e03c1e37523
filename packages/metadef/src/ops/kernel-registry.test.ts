import { describe, expect, it } from 'vitest';
import type { KernelLibraryV1, KernelV1 } from '../spi/kernel.js';
import { createKernelRegistry, createKernelRegistryOf } from './kernel-registry.js';

const kernel = (opType: string, name: string, tag: string, dtypes?: KernelV1['dtypes']): KernelV1 => ({
  specVersion: 'v1',
  opType,
  domain: 'ai.onnx',
  name,
  ...(dtypes ? { dtypes } : {}),
  compute: () => {
    throw new Error(tag);
  },
});
const tagOf = (k: KernelV1 | undefined): string => {
  try {
    k?.compute({} as never);
  } catch (e) {
    return (e as Error).message;
  }
  return 'none';
};
const library = (name: string, kernels: KernelV1[], tiles: string[] = []): KernelLibraryV1 => ({
  specVersion: 'v1',
  name,
  device: 'host',
  kernels,
  tiles: tiles.map((t) => ({ name: t, run: () => {} })),
});

describe('kernel registry', () => {
  it('prefers implementation names in order and falls back to the first fitting kernel', () => {
    const r = createKernelRegistry([kernel('Add', 'reference', 'ref'), kernel('Add', 'wasm-simd', 'simd', ['float32'])]);
    expect(tagOf(r.find('Add', '', 'float32', ['wasm-simd', 'reference']))).toBe('simd');
    expect(tagOf(r.find('Add', 'ai.onnx', 'int64', ['wasm-simd', 'reference']))).toBe('ref');
    expect(tagOf(r.find('Add', 'ai.onnx', 'float32', ['other']))).toBe('ref');
    expect(r.has('Add', '', 'wasm-simd')).toBe(true);
    expect(r.find('Sub', 'ai.onnx', 'float32')).toBeUndefined();
  });
  it('rejects a second kernel of the same op and name with TSGE-E4005', () => {
    const r = createKernelRegistry([kernel('Add', 'reference', 'a')]);
    expect(() => r.register(kernel('Add', 'reference', 'b'))).toThrow(/TSGE-E4005/);
  });
  it('lets an earlier library shadow a later one, kernels and tile functions alike', () => {
    const user = library('user', [kernel('Add', 'reference', 'user')], ['t.scale']);
    const defaults = library(
      'defaults',
      [kernel('Add', 'reference', 'default'), kernel('Mul', 'reference', 'mul')],
      ['t.scale', 't.other'],
    );
    const r = createKernelRegistryOf([user, defaults]);
    expect(tagOf(r.find('Add', '', 'float32'))).toBe('user');
    expect(tagOf(r.find('Mul', '', 'float32'))).toBe('mul');
    expect(r.list()).toHaveLength(2);
    expect(r.tile('t.scale')).toBe(user.tiles[0]);
    expect(r.tile('t.other')).toBe(defaults.tiles[1]);
    expect(r.tile('t.none')).toBeUndefined();
  });
});
