import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * Starts a worker on `entry`. When running from TypeScript sources (dev and tests), the worker
 * resolves workspace packages through the `@tsge/source` condition and loads `.ts` files through
 * tsx's loader, registered by a small bootstrap before the entry is imported; published `dist`
 * JavaScript starts directly.
 */
export function spawnWorker(entry: URL): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry);
  const bootstrap = [
    `import { register } from ${JSON.stringify(tsxApiUrl())};`,
    'register();',
    `await import(${JSON.stringify(entry.href)});`,
  ].join('\n');
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`), { execArgv: ['--conditions=@tsge/source'] });
}

let cachedTsxApi: string | undefined;

/** The ESM entry of tsx's register API, found from this package (tsx is a dev dependency). */
function tsxApiUrl(): string {
  if (cachedTsxApi) return cachedTsxApi;
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('tsx/package.json');
  cachedTsxApi = pathToFileURL(path.join(path.dirname(manifest), 'dist/esm/api/index.mjs')).href;
  return cachedTsxApi;
}
