import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { bundledWorkerExecArgv, currentWorkerModuleUrl, workerModuleUrl } from './worker-bundle.js';

/** What a worker started on `url` posts first. */
function firstMessage(url: string): Promise<unknown> {
  const worker = new Worker(new URL(url));
  return new Promise<unknown>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  }).finally(() => worker.terminate());
}

describe('worker module bundles', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('bundles a TypeScript module with its imports, and rebuilds it in a process started after one of them changed', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'tsge-bundle-test-'));
    dirs.push(dir);
    const dep = path.join(dir, 'dep.ts');
    const main = path.join(dir, 'main.ts');
    await writeFile(dep, 'export const value: number = 1;\n');
    await writeFile(
      main,
      "import { parentPort } from 'node:worker_threads';\nimport { value } from './dep.js';\nparentPort?.postMessage(value);\n",
    );
    const source = pathToFileURL(main).href;
    expect(currentWorkerModuleUrl(source)).toBeUndefined();
    const bundle = await workerModuleUrl(source);
    expect(bundle).toMatch(/\.mjs$/);
    expect(await firstMessage(bundle)).toBe(1);
    // current now, without building
    expect(currentWorkerModuleUrl(source)).toBe(bundle);
    await writeFile(dep, 'export const value: number = 22;\n');
    // this process keeps the bundle of the code it started with
    expect(currentWorkerModuleUrl(source)).toBe(bundle);
    // the next process (a fresh instance of the module) sees the edit and rebuilds
    vi.resetModules();
    const next = (await import('./worker-bundle.js')) as typeof import('./worker-bundle.js');
    expect(next.currentWorkerModuleUrl(source)).toBeUndefined();
    expect(await firstMessage(await next.workerModuleUrl(source))).toBe(22);
  });

  it('leaves JavaScript modules as they are and reports a module that does not build', async () => {
    expect(await workerModuleUrl('file:///somewhere/module.js')).toBe('file:///somewhere/module.js');
    const missing = pathToFileURL(path.join(tmpdir(), 'tsge-no-such-module.ts')).href;
    await expect(workerModuleUrl(missing)).rejects.toThrow();
  });

  it('starts bundled workers without the module loaders and preloads of the parent', () => {
    expect(
      bundledWorkerExecArgv([
        '--conditions=@tsge/source',
        '--import',
        'tsx',
        '--max-old-space-size=512',
        '--loader=x.mjs',
        '-r',
        'y.cjs',
        '--inspect',
      ]),
    ).toEqual(['--conditions=@tsge/source', '--inspect']);
  });

  it('leaves out the V8 and process-wide options a worker refuses, so the worker starts', async () => {
    const execArgv = bundledWorkerExecArgv([
      '--no-wasm-dynamic-tiering',
      '--expose-gc',
      '--stack-size=2000',
      '-C',
      'x',
      '--cpu-prof-dir=/tmp',
      '--cpu-prof-interval',
      '200',
      '--max-semi-space-size',
      '16',
    ]);
    expect(execArgv).toEqual(['-C', 'x', '--cpu-prof-dir=/tmp', '--cpu-prof-interval', '200']);
    const worker = new Worker('require("node:worker_threads").parentPort.postMessage("up")', {
      eval: true,
      execArgv: bundledWorkerExecArgv(['--no-wasm-dynamic-tiering', '--expose-gc', '--max-old-space-size=512', '--no-warnings']),
    });
    try {
      expect(await new Promise((resolve, reject) => worker.once('message', resolve).once('error', reject))).toBe('up');
    } finally {
      await worker.terminate();
    }
  });
});
