// Source mode (dev, tests, `pnpm bench`): a worker importing TypeScript through a loader registered
// in the worker spends seconds starting it and resolving each of a handler's ~350 modules through
// it; the same code bundled into one JavaScript file starts in a tenth of that. Bundles are cached
// on disk, keyed by the module, and rebuilt when any file that went into them changed.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { mkdir, rename, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

interface Esbuild {
  build(options: Record<string, unknown>): Promise<{
    outputFiles: { text: string }[];
    metafile: { inputs: Record<string, unknown> };
  }>;
}

/** Each file that went into a bundle, with the size and modification time it had. */
type Inputs = Record<string, [number, number]>;

const CACHE_DIR = path.join(tmpdir(), 'tsge-worker-bundles');
/** Bundles being built, by module URL. */
const building = new Map<string, Promise<string>>();
/**
 * Bundles found current, by module URL. Checked once a process (~350 stats, tens of ms on a busy
 * machine, inside `loadModel`): a process keeps the code it imported, and its workers the bundle
 * of that code; the next process sees edits.
 */
const currentBundles = new Map<string, string>();

/** Whether a worker needs `url` bundled: a TypeScript source file. */
export function isTypeScriptModule(url: string): boolean {
  return url.startsWith('file:') && url.endsWith('.ts');
}

/**
 * The URL a worker thread imports for module `url`, when known without building: `url` itself
 * unless it is TypeScript, else its cached bundle if no file that went into it changed. Synchronous,
 * so workers start at once even when the caller then blocks its event loop (a first run).
 */
export function currentWorkerModuleUrl(url: string): string | undefined {
  if (!isTypeScriptModule(url)) return url;
  const known = currentBundles.get(url);
  if (known !== undefined) return known;
  const out = bundlePath(fileURLToPath(url));
  if (!unchanged(out)) return undefined;
  const href = pathToFileURL(out).href;
  currentBundles.set(url, href);
  return href;
}

/**
 * The URL a worker thread imports for module `url`: `url` itself unless it is TypeScript, else a
 * JavaScript bundle of it and everything it imports (workspace packages from their sources).
 */
export function workerModuleUrl(url: string): Promise<string> {
  const current = currentWorkerModuleUrl(url);
  if (current !== undefined) return Promise.resolve(current);
  let bundle = building.get(url);
  if (!bundle) {
    bundle = bundleOf(fileURLToPath(url)).then((href) => {
      currentBundles.set(url, href);
      return href;
    });
    building.set(url, bundle);
    // settled either way: a failed build is retried by the next pool (the source may be fixed)
    const forget = (): void => void building.delete(url);
    bundle.then(forget, forget);
  }
  return bundle;
}

/**
 * Node options a bundled worker is started with, of the parent's: the per-thread ones workers
 * accept and that still matter to a bundle (profiling, source maps, warnings, export conditions,
 * the inspector).
 * Module loaders and preloads are left out (a bundle needs none; tsx, inherited from `--import
 * tsx`, cost each worker ~100 ms), and so is everything else: a worker refuses V8 and
 * process-wide options in `execArgv` (ERR_WORKER_INVALID_EXEC_ARGV), and V8 flags reach every
 * thread of the process anyway.
 */
const WORKER_FLAGS = [
  '--cpu-prof',
  '--heap-prof',
  '--enable-source-maps',
  '--no-warnings',
  '--trace-warnings',
  '--conditions',
  '-C',
  '--inspect',
];
/** Options whose value may be the next argument (`--cpu-prof-interval 200`): kept or dropped with it. */
const TAKES_VALUE = new Set([
  '--import',
  '--loader',
  '--experimental-loader',
  '--require',
  '-r',
  '--conditions',
  '-C',
  '--cpu-prof-dir',
  '--cpu-prof-name',
  '--cpu-prof-interval',
  '--heap-prof-dir',
  '--heap-prof-name',
  '--heap-prof-interval',
]);

export function bundledWorkerExecArgv(execArgv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i] as string;
    const flag = arg.split('=', 1)[0] as string;
    const separateValue = TAKES_VALUE.has(flag) && !arg.includes('=');
    if (WORKER_FLAGS.some((f) => flag === f || flag.startsWith(`${f}-`)))
      kept.push(...(separateValue ? [arg, execArgv[i + 1] as string] : [arg]));
    if (separateValue) i++; // its value is the next argument
  }
  return kept;
}

function bundlePath(file: string): string {
  const key = createHash('sha256').update(file).digest('hex').slice(0, 16);
  return path.join(CACHE_DIR, `${path.basename(file, '.ts')}-${key}.mjs`);
}

async function bundleOf(file: string): Promise<string> {
  const out = bundlePath(file);
  const manifest = `${out}.json`;
  const result = await esbuild().build({
    entryPoints: [file],
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    conditions: ['@tsge/source'],
    logLevel: 'silent',
    absWorkingDir: path.dirname(file),
  });
  const inputs: Inputs = {};
  for (const input of Object.keys(result.metafile.inputs)) {
    const absolute = path.resolve(path.dirname(file), input);
    const info = await stat(absolute);
    inputs[absolute] = [info.size, info.mtimeMs];
  }
  await mkdir(CACHE_DIR, { recursive: true });
  // written under a unique name and renamed, so a concurrent process never reads half a file
  const unique = `.${process.pid}-${Math.random().toString(36).slice(2)}`;
  await writeFile(out + unique, result.outputFiles[0]?.text ?? '');
  await rename(out + unique, out);
  await writeFile(manifest + unique, JSON.stringify(inputs));
  await rename(manifest + unique, manifest);
  return pathToFileURL(out).href;
}

/** Whether bundle `out` exists and no file that went into it changed (about 350 stats). */
function unchanged(out: string): boolean {
  try {
    const inputs = JSON.parse(readFileSync(`${out}.json`, 'utf8')) as Inputs;
    statSync(out);
    return Object.entries(inputs).every(([file, [size, mtime]]) => {
      const info = statSync(file, { throwIfNoEntry: false });
      return info?.size === size && info.mtimeMs === mtime;
    });
  } catch {
    return false;
  }
}

/** esbuild, found from this package (a dev dependency: only source mode bundles). */
function esbuild(): Esbuild {
  return createRequire(import.meta.url)('esbuild') as Esbuild;
}
