import { stat } from 'node:fs/promises';
import path from 'node:path';

/** The file a directory model is read from: a TensorFlow SavedModel keeps its graph here. */
const DIRECTORY_MODEL_FILE = 'saved_model.pb';

/**
 * The model file of a path: for a directory holding `saved_model.pb` (a TensorFlow SavedModel)
 * that file, whose folder then holds the side files (`variables/`); otherwise the path itself, so
 * the read that follows reports a missing file or a plain directory as it always does.
 */
export async function modelFileOf(source: string): Promise<string> {
  try {
    if (!(await stat(source)).isDirectory()) return source;
    const file = path.join(source, DIRECTORY_MODEL_FILE);
    return (await stat(file)).isFile() ? file : source;
  } catch {
    return source;
  }
}
