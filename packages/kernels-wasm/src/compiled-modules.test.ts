import { describe, expect, it } from 'vitest';
import { adoptCompiledModules, compiledModuleEntries, sharedCompiledModule } from './compiled-modules.js';
import { assembleModule, Code, I32 } from './emitter.js';

// this package compiles without the DOM or Node typings of WebAssembly: the part the tests use
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Memory: new (descriptor: { initial: number }) => object;
  Instance: new (module: object, imports: Record<string, Record<string, unknown>>) => { exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** A module exporting `f() -> value` (so modules compiled from different bytes are told apart). */
function constantModule(value: number): Uint8Array {
  const code = new Code(0);
  code.i32(value);
  return assembleModule([{ name: 'f', params: [], results: [I32], code }], { shared: false });
}
const memory = new wasm.Memory({ initial: 1 });
const callF = (module: object): number => (new wasm.Instance(module, { env: { memory } }).exports.f as () => number)();

describe('compiled modules shared between threads', () => {
  it('compiles a key once and lists it for another thread', () => {
    let emitted = 0;
    const bytes = () => {
      emitted++;
      return constantModule(7);
    };
    const first = sharedCompiledModule('test:once', bytes);
    expect(sharedCompiledModule('test:once', bytes)).toBe(first);
    expect(emitted).toBe(1);
    expect(callF(first)).toBe(7);
    expect(compiledModuleEntries().find(([key]) => key === 'test:once')?.[1]).toBe(first);
  });

  it('uses an adopted module instead of emitting its own', () => {
    const theirs = new wasm.Module(constantModule(11));
    adoptCompiledModules([['test:adopted', theirs]]);
    const module = sharedCompiledModule('test:adopted', () => {
      throw new Error('an adopted module is not emitted again');
    });
    expect(module).toBe(theirs);
    expect(callF(module)).toBe(11);
  });

  it('keeps a module it compiled itself over an adopted one of the same key', () => {
    const own = sharedCompiledModule('test:own', () => constantModule(1));
    adoptCompiledModules([['test:own', new wasm.Module(constantModule(2))]]);
    expect(sharedCompiledModule('test:own', () => constantModule(3))).toBe(own);
  });

  it('refuses entries that are not [key, WebAssembly.Module] pairs', () => {
    expect(() => adoptCompiledModules({})).toThrow(/expected an array/);
    expect(() => adoptCompiledModules([['test:bytes', constantModule(1)]])).toThrow(/entry test:bytes is not/);
    expect(() => adoptCompiledModules([[3, new wasm.Module(constantModule(1))]])).toThrow(/an entry is not/);
    expect(() => adoptCompiledModules(['test:flat'])).toThrow(/is not a \[key, WebAssembly.Module\] pair/);
    expect(compiledModuleEntries().some(([key]) => key === 'test:bytes')).toBe(false);
  });
});
