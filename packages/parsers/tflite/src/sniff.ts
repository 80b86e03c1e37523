import { hasTfliteIdentifier } from './schema/model.js';

/** Confidence that bytes are a TFLite model: the "TFL3" file identifier, plus the extension. */
export function sniffTflite(bytes: Uint8Array, path?: string): number {
  const byExtension = path !== undefined && /\.tflite$/i.test(path);
  if (hasTfliteIdentifier(bytes)) return byExtension ? 1 : 0.9;
  return byExtension ? 0.2 : 0;
}
