// A checkpoint folder: config.json and the *.safetensors files holding its weights.
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { TsgeError } from '@tsge/metadef';
import { type DecoderConfig, parseConfig } from './config.js';
import type { WeightSource } from './decoder-graph.js';
import { Safetensors } from './safetensors.js';

export interface Checkpoint {
  readonly dir: string;
  readonly config: DecoderConfig;
  readonly weights: WeightSource;
}

/** A read whose failure (missing file, a folder, no permission) is a coded error naming the path. */
export async function readOrFail<T>(file: string, how: () => Promise<T>): Promise<T> {
  try {
    return await how();
  } catch (error) {
    throw TsgeError.of('TSGE-E4150', { file, reason: `cannot be read (${error instanceof Error ? error.message : String(error)})` });
  }
}

export async function readCheckpoint(dir: string): Promise<Checkpoint> {
  const configFile = path.join(dir, 'config.json');
  const config = parseConfig(await readOrFail(configFile, () => readFile(configFile, 'utf8')), configFile);
  const files = (await readOrFail(dir, () => readdir(dir))).filter((f) => f.endsWith('.safetensors')).sort();
  if (files.length === 0) throw TsgeError.of('TSGE-E4151', { file: dir, tensor: '*', reason: 'the folder has no .safetensors file' });
  const owner = new Map<string, Safetensors>();
  for (const f of files) {
    const file = path.join(dir, f);
    const st = Safetensors.parse(new Uint8Array(await readOrFail(file, () => readFile(file))), file);
    for (const name of st.names) {
      const other = owner.get(name);
      if (other) throw TsgeError.of('TSGE-E3502', { file, tensor: name, reason: `also in ${other.file}` });
      owner.set(name, st);
    }
  }
  const weights: WeightSource = {
    has: (name) => owner.has(name),
    get(name) {
      const st = owner.get(name);
      if (!st) throw TsgeError.of('TSGE-E4151', { file: dir, tensor: name, reason: 'missing from the checkpoint' });
      return { shape: st.entry(name).shape, data: st.float32(name) };
    },
  };
  return { dir, config, weights };
}
