import { type ChildProcess, fork } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

let cachedTsxApi: string | undefined;

/** tsx's register API, for hosts started from TypeScript sources (dev and tests). */
function tsxApiUrl(): string {
  if (cachedTsxApi) return cachedTsxApi;
  const require = createRequire(import.meta.url);
  cachedTsxApi = pathToFileURL(path.join(path.dirname(require.resolve('tsx/package.json')), 'dist/esm/api/index.mjs')).href;
  return cachedTsxApi;
}

const fromSources = (entry: URL): boolean => entry.pathname.endsWith('.ts');
const registerTsx = (): string => `import { register } from ${JSON.stringify(tsxApiUrl())}; register();`;

/** A worker thread on `entry` (through tsx when it is TypeScript, resolving workspace sources). */
export function spawnWorkerHost(entry: URL): Worker {
  if (!fromSources(entry)) return new Worker(entry);
  const bootstrap = `${registerTsx()}\nawait import(${JSON.stringify(entry.href)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`), { execArgv: ['--conditions=@tsge/source'] });
}

/** Node arguments that let a child process run `entry` (tsx and the source condition for TypeScript). */
export function nodeArgsFor(entry: URL): string[] {
  if (!fromSources(entry)) return [];
  return ['--conditions=@tsge/source', '--import', `data:text/javascript,${encodeURIComponent(registerTsx())}`];
}

/** A child process on `entry` with an IPC channel that carries typed arrays (advanced serialization). */
export function spawnChildHost(entry: URL, args: readonly string[] = []): ChildProcess {
  return fork(entry, [...args], {
    execArgv: nodeArgsFor(entry),
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}
