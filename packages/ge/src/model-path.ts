import { stat } from 'node:fs/promises';
import path from 'node:path';
import { TsgeError } from '@tsge/metadef';

/** The file a directory model is read from: a TensorFlow SavedModel keeps its graph here. */
const DIRECTORY_MODEL_FILE = 'saved_model.pb';

/**
 * The model file of a path: the path itself, or for a directory (a TensorFlow SavedModel) its
 * `saved_model.pb`, whose folder then holds the side files (`variables/`). A directory without
 * one is TSGE-E3001 naming it; other failures are left to the file read that follows.
 */
export async function modelFileOf(source: string): Promise<string> {
  let isDirectory = false;
  try {
    isDirectory = (await stat(source)).isDirectory();
  } catch {
    return source;
  }
  if (!isDirectory) return source;
  const file = path.join(source, DIRECTORY_MODEL_FILE);
  try {
    if ((await stat(file)).isFile()) return file;
  } catch {
    // reported below
  }
  throw TsgeError.of(
    'TSGE-E3001',
    { reason: `${source} is a directory without ${DIRECTORY_MODEL_FILE} (the only model kept as a directory is a TensorFlow SavedModel)` },
    { file: source },
  );
}
