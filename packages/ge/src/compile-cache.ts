import { createHash } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { TsgeError } from '@tsge/metadef';

/** An opt-in on-disk cache of compiled `.om` files, keyed by the model's bytes and the options. */
export interface CompileCacheOptions {
  /** Folder for the cached `.om` files (created when missing). */
  readonly directory: string;
  /** Upper bound of the folder's cached bytes; least recently used entries go first (default 1 GiB). */
  readonly maxBytes?: number;
}

const DEFAULT_MAX_BYTES = 1 << 30;
const ENTRY_SUFFIX = '.om';
const SIDE_FILES_SUFFIX = '.inputs.json';

/** A side file a parser read (ONNX external data), recorded so a changed weight file misses. */
export interface SideFile {
  readonly path: string;
  readonly sha256: string;
  /** A ranged read (external data read by offset): only these bytes are hashed. */
  readonly offset?: number;
  readonly length?: number;
}

export function sha256(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * The key of one compilation: a format tag, the model bytes and the options as canonical JSON
 * (keys sorted, so `{a, b}` and `{b, a}` share an entry). `version` names the compiler and file
 * format so an upgrade never reads stale entries.
 */
export function cacheKey(version: string, model: Uint8Array, options: unknown): string {
  const hash = createHash('sha256');
  hash.update(`tsge-compile-cache/1\0${version}\0`);
  hash.update(model);
  hash.update(`\0${canonicalJson(options)}`);
  return hash.digest('hex');
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return v;
  });
}

export interface CompileCache {
  /** The cached `.om` for `key`, or undefined; side files that changed since make it a miss. */
  get(key: string, modelDirectory: string | undefined): Promise<Uint8Array | undefined>;
  put(key: string, om: Uint8Array, sideFiles: readonly SideFile[]): Promise<void>;
  /** Drops an entry (one that failed to load). */
  delete(key: string): Promise<void>;
}

export function openCompileCache(options: CompileCacheOptions): CompileCache {
  const directory = path.resolve(options.directory);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  if (!Number.isFinite(maxBytes) || maxBytes <= 0) {
    throw TsgeError.of('TSGE-E6151', { option: 'cache.maxBytes', reason: `must be a positive number of bytes, got ${String(maxBytes)}` });
  }
  const fail = (reason: string, cause: unknown): TsgeError => TsgeError.of('TSGE-E6152', { directory, reason }, { file: directory }, cause);
  const entry = (key: string): string => path.join(directory, key + ENTRY_SUFFIX);
  const sides = (key: string): string => path.join(directory, key + SIDE_FILES_SUFFIX);

  return {
    async get(key, modelDirectory) {
      let om: Uint8Array;
      try {
        om = new Uint8Array(await readFile(entry(key)));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw fail(`cannot read ${entry(key)}`, error);
      }
      if (!(await sideFilesUnchanged(sides(key), modelDirectory))) return undefined;
      // the modification time marks use, for least-recently-used eviction
      const now = new Date();
      await utimes(entry(key), now, now).catch(() => undefined);
      return om;
    },
    async put(key, om, sideFiles) {
      if (om.byteLength > maxBytes) return; // never cached: it would evict everything and still not fit
      try {
        await mkdir(directory, { recursive: true });
        // write then rename, so a concurrent reader never sees half a file
        const temporary = `${entry(key)}.${process.pid}.${Date.now()}.tmp`;
        await writeFile(temporary, om);
        if (sideFiles.length > 0) await writeFile(sides(key), JSON.stringify(sideFiles));
        else await rm(sides(key), { force: true });
        await rename(temporary, entry(key));
        await evict(directory, maxBytes);
      } catch (error) {
        throw fail('cannot write an entry', error);
      }
    },
    async delete(key) {
      await rm(entry(key), { force: true });
      await rm(sides(key), { force: true });
    },
  };
}

/** A side file's bytes as the parser read them: whole, or the recorded range. */
async function readSide(file: string, side: SideFile): Promise<Uint8Array> {
  if (side.offset === undefined) return new Uint8Array(await readFile(file));
  const handle = await open(file, 'r');
  try {
    const bytes = new Uint8Array(side.length ?? 0);
    const { bytesRead } = await handle.read(bytes, 0, bytes.length, side.offset);
    return bytes.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

async function sideFilesUnchanged(listFile: string, modelDirectory: string | undefined): Promise<boolean> {
  let list: SideFile[];
  try {
    list = JSON.parse(await readFile(listFile, 'utf8')) as SideFile[];
  } catch {
    return true; // no side files were read for this entry
  }
  if (modelDirectory === undefined) return list.length === 0;
  for (const side of list) {
    try {
      if (sha256(await readSide(path.resolve(modelDirectory, side.path), side)) !== side.sha256) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** Removes least recently used entries until the cached `.om` bytes fit `maxBytes`. */
async function evict(directory: string, maxBytes: number): Promise<void> {
  const entries: { key: string; bytes: number; used: number }[] = [];
  for (const name of await readdir(directory)) {
    if (!name.endsWith(ENTRY_SUFFIX)) continue;
    const info = await stat(path.join(directory, name)).catch(() => undefined);
    if (info) entries.push({ key: name.slice(0, -ENTRY_SUFFIX.length), bytes: info.size, used: info.mtimeMs });
  }
  let total = entries.reduce((sum, e) => sum + e.bytes, 0);
  entries.sort((a, b) => a.used - b.used);
  for (const e of entries) {
    if (total <= maxBytes) break;
    await rm(path.join(directory, e.key + ENTRY_SUFFIX), { force: true });
    await rm(path.join(directory, e.key + SIDE_FILES_SUFFIX), { force: true });
    total -= e.bytes;
  }
}
