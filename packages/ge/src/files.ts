/**
 * File reads for untrusted models: only regular files (a FIFO would block the read forever, a
 * device such as /dev/zero never ends), sizes bounded before anything is allocated, side files
 * confined to the model's folder by their real path (a symlink cannot lead out of it), and side
 * data read as the range a tensor needs rather than the whole file.
 */
import { constants } from 'node:fs';
import { type FileHandle, open, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { DiagnosticLocation } from '@tsge/metadef';
import { TsgeError } from '@tsge/metadef';

/** Whole-file reads stop here (protobuf models and Node's `readFile` stop at 2 GiB too). */
export const MAX_FILE_BYTES = 2 ** 31 - 1;
/** One external-data range at most (a typed array's length limit). */
const MAX_RANGE_BYTES = 2 ** 32;
/** Reads are split into chunks of this size (a single `read` is limited to 2 GiB). */
const CHUNK_BYTES = 1 << 30;

/** What a file-system failure means for a user, by errno. */
export function describeFileError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'ENOTDIR':
      return 'a part of the path is a file, not a directory';
    case 'EISDIR':
      return 'it is a directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EEXIST':
      return 'it already exists';
    case 'ENOSPC':
      return 'no space left on the device';
    case 'EROFS':
      return 'the file system is read-only';
    case 'ELOOP':
      return 'too many levels of symbolic links';
    case 'ENAMETOOLONG':
      return 'the name is too long';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}

/** A file-system failure as a user error (TSGE-E7050) naming the path and what was being done. */
export function fileError(action: string, filePath: string, error: unknown, location?: DiagnosticLocation): TsgeError {
  return TsgeError.of('TSGE-E7050', { action, path: filePath, reason: describeFileError(error) }, { file: filePath, ...location }, error);
}

class NotReadable extends Error {}

async function openRegular(filePath: string): Promise<{ handle: FileHandle; size: number }> {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer
  const handle = await open(filePath, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw new NotReadable('it is a directory');
    if (!info.isFile()) throw new NotReadable('it is not a regular file (a FIFO, socket or device)');
    return { handle, size: info.size };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

async function readAt(handle: FileHandle, offset: number, length: number): Promise<Uint8Array> {
  const out = new Uint8Array(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(out, done, Math.min(length - done, CHUNK_BYTES), offset + done);
    if (bytesRead === 0) throw new NotReadable(`the file ended after ${offset + done} bytes`);
    done += bytesRead;
  }
  return out;
}

const reasonOf = (error: unknown): string => (error instanceof NotReadable ? error.message : describeFileError(error));

/**
 * Reads a regular file whole, refusing directories, FIFOs and devices and files over `maxBytes`
 * before reading. Failures are TSGE-E7003 for a missing file and TSGE-E7050 ("cannot read <path>:
 * <reason>") otherwise, unless `code` names another catalog entry with a `reason` placeholder
 * (parseModel uses TSGE-E3001).
 */
export async function readRegularFile(
  filePath: string,
  options: { readonly maxBytes?: number; readonly code?: 'TSGE-E3001' } = {},
): Promise<Uint8Array> {
  const maxBytes = options.maxBytes ?? MAX_FILE_BYTES;
  const fail = (reason: string, cause?: unknown): TsgeError => {
    if (options.code) return TsgeError.of(options.code, { reason: `${filePath}: ${reason}` }, { file: filePath }, cause);
    if ((cause as NodeJS.ErrnoException | undefined)?.code === 'ENOENT')
      return TsgeError.of('TSGE-E7003', { path: filePath }, { file: filePath }, cause);
    return TsgeError.of('TSGE-E7050', { action: 'read', path: filePath, reason }, { file: filePath }, cause);
  };
  let opened: { handle: FileHandle; size: number };
  try {
    opened = await openRegular(filePath);
  } catch (error) {
    throw fail(reasonOf(error), error);
  }
  try {
    if (opened.size > maxBytes) throw new NotReadable(`it has ${opened.size} bytes, more than the limit of ${maxBytes}`);
    return await readAt(opened.handle, 0, opened.size);
  } catch (error) {
    throw fail(reasonOf(error), error);
  } finally {
    await opened.handle.close();
  }
}

/** Side-file access relative to a model's folder (`ParseInput.readRelative` / `readRange`). */
export interface ConfinedReader {
  readRelative(relativePath: string): Promise<Uint8Array>;
  readRange(relativePath: string, offset: number, length: number): Promise<Uint8Array>;
}

/**
 * Reads side files of the model in `root`. A path is refused (TSGE-E3004) when it leaves the
 * folder, lexically or through a symlink (both sides are resolved to real paths); a file that is
 * not regular, too large, or shorter than the range asked is TSGE-E3050 naming the path.
 */
export function confinedReader(root: string): ConfinedReader {
  let realRoot: Promise<string> | undefined;
  const problem = (relativePath: string, reason: string, cause?: unknown): TsgeError =>
    TsgeError.of('TSGE-E3050', { path: relativePath, reason }, { file: relativePath }, cause);

  const resolveInside = async (relativePath: string): Promise<string> => {
    const escapes = (rel: string) => rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel);
    const full = path.resolve(root, relativePath);
    if (path.isAbsolute(relativePath) || relativePath.includes('\0') || escapes(path.relative(root, full)))
      throw TsgeError.of('TSGE-E3004', { path: relativePath }, { file: relativePath });
    realRoot ??= realpath(root);
    let real: string;
    try {
      real = await realpath(full);
    } catch (error) {
      throw problem(relativePath, describeFileError(error), error);
    }
    const rel = path.relative(await realRoot, real);
    if (rel === '' || escapes(rel)) throw TsgeError.of('TSGE-E3004', { path: relativePath }, { file: relativePath });
    return real;
  };

  const withFile = async <T>(relativePath: string, use: (handle: FileHandle, size: number) => Promise<T>): Promise<T> => {
    const real = await resolveInside(relativePath);
    let opened: { handle: FileHandle; size: number };
    try {
      opened = await openRegular(real);
    } catch (error) {
      throw problem(relativePath, reasonOf(error), error);
    }
    try {
      return await use(opened.handle, opened.size);
    } catch (error) {
      throw TsgeError.isInstance(error) ? error : problem(relativePath, reasonOf(error), error);
    } finally {
      await opened.handle.close();
    }
  };

  return {
    readRelative: (relativePath) =>
      withFile(relativePath, (handle, size) => {
        if (size > MAX_FILE_BYTES) throw problem(relativePath, `it has ${size} bytes, more than the limit of ${MAX_FILE_BYTES}`);
        return readAt(handle, 0, size);
      }),
    readRange: (relativePath, offset, length) => {
      if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(length) || length < 0 || length > MAX_RANGE_BYTES)
        return Promise.reject(problem(relativePath, `invalid range: ${length} bytes at offset ${offset}`));
      return withFile(relativePath, (handle, size) => {
        // checked against the file before a byte is allocated
        if (offset + length > size)
          throw problem(relativePath, `${length} bytes at offset ${offset} lie beyond the end of the file (${size} bytes)`);
        return readAt(handle, offset, length);
      });
    },
  };
}

/**
 * Side files handed over in memory (`sideFiles` of a model given as bytes), read by the names the
 * model uses for them. A name that was not given, or a range past a file's end, is TSGE-E3050.
 */
export function memoryReader(files: Readonly<Record<string, Uint8Array>>): ConfinedReader {
  const byName = new Map(Object.entries(files));
  const file = (relativePath: string): Uint8Array => {
    const bytes = byName.get(relativePath);
    if (!(bytes instanceof Uint8Array)) {
      const given = [...byName.keys()].join(', ') || 'none';
      throw TsgeError.of(
        'TSGE-E3050',
        { path: relativePath, reason: `it is not among the side files given (${given})` },
        { file: relativePath },
      );
    }
    return bytes;
  };
  return {
    readRelative: async (relativePath) => file(relativePath),
    readRange: async (relativePath, offset, length) => {
      const bytes = file(relativePath);
      if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(length) || length < 0 || offset + length > bytes.length)
        throw TsgeError.of(
          'TSGE-E3050',
          { path: relativePath, reason: `${length} bytes at offset ${offset} lie outside its ${bytes.length} bytes` },
          { file: relativePath },
        );
      return bytes.subarray(offset, offset + length);
    },
  };
}
