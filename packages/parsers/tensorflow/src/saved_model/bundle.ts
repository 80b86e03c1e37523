// TensorFlow's tensor bundle (the checkpoint format of a SavedModel's `variables/`): an index table
// (`<prefix>.index`, LevelDB format) mapping each tensor's key to a BundleEntryProto (dtype, shape,
// shard, offset, size, crc32c), whose entry `""` is the BundleHeaderProto, and the data shards
// `<prefix>.data-NNNNN-of-NNNNN`. Tensors are read lazily, only the byte range each needs.
import { DTYPE_BYTES, type HostTensor } from '@tsge/metadef';
import { fromBytes, shapeOf } from '../import/tensor.js';
import { tfDtype } from '../import/dtype.js';
import { type IBundleEntryProto, tf } from '../internal/proto.js';
import { LIMITS, TfProblem, toInt } from '../internal/problem.js';
import { crc32c, maskCrc } from './crc32c.js';
import { readTable } from './sstable.js';

/** Side-file reads relative to the SavedModel directory (ParseInput's). */
export interface SideFiles {
  readonly readRelative?: ((relativePath: string) => Promise<Uint8Array>) | undefined;
  readonly readRange?: ((relativePath: string, offset: number, length: number) => Promise<Uint8Array>) | undefined;
}

const problem = (reason: string) => new TfProblem('TSGE-E3110', { reason });

export class TensorBundle {
  private constructor(
    private readonly files: SideFiles,
    private readonly prefix: string,
    private readonly shards: number,
    private readonly entries: ReadonlyMap<string, IBundleEntryProto>,
  ) {}

  /** Opens `<prefix>.index` (e.g. `variables/variables`) and decodes its header and entries. */
  static async open(files: SideFiles, prefix: string): Promise<TensorBundle> {
    const indexName = `${prefix}.index`;
    if (!files.readRelative) throw problem(`${indexName} cannot be read: the SavedModel was given as bytes, without its directory`);
    const file = await files.readRelative(indexName);
    const decoder = new TextDecoder('utf-8', { fatal: false });
    const entries = new Map<string, IBundleEntryProto>();
    let shards = -1;
    for (const { key, value } of readTable(file, indexName)) {
      const name = decoder.decode(key);
      try {
        if (name === '') {
          const header = tf.BundleHeaderProto.decode(value);
          if (header.endianness !== 0) throw problem(`${indexName}: big-endian bundles are not supported`);
          shards = header.numShards;
        } else entries.set(name, tf.BundleEntryProto.decode(value));
      } catch (error) {
        if (error instanceof TfProblem) throw error;
        throw problem(
          `${indexName}: entry ${JSON.stringify(name)} is not a valid ${name === '' ? 'BundleHeaderProto' : 'BundleEntryProto'}`,
        );
      }
    }
    if (shards < 1 || shards > 99_999) throw problem(`${indexName}: header ${shards < 0 ? 'is missing' : `claims ${shards} shards`}`);
    return new TensorBundle(files, prefix, shards, entries);
  }

  get keys(): readonly string[] {
    return [...this.entries.keys()];
  }

  /** The tensor stored under `key`, checked against its entry's size and crc32c. */
  async read(key: string): Promise<HostTensor> {
    const entry = this.entries.get(key);
    if (!entry) throw problem(`${this.prefix}.index has no tensor ${JSON.stringify(key)}`);
    const where = `checkpoint tensor ${key}`;
    if (entry.slices?.length) throw problem(`${where} is stored in slices (a partitioned variable), which is not supported`);
    const type = tfDtype(entry.dtype, where);
    const dims = shapeOf(entry.shape) ?? [];
    if (dims.some((d) => d < 0)) throw problem(`${where} has unknown dims [${dims.join(',')}]`);
    const count = dims.reduce((a, b) => a * b, 1);
    if (count > LIMITS.tensorElements)
      throw new TfProblem('TSGE-E3106', { format: 'SavedModel', what: `${where} elements`, actual: count, limit: LIMITS.tensorElements });
    const width = DTYPE_BYTES[type];
    if (type === 'string' || !width) throw problem(`${where} has dtype ${type}, which variables of this reader cannot hold`);
    const offset = toInt(entry.offset, `${where} offset`);
    const size = toInt(entry.size, `${where} size`);
    if (size !== count * width) throw problem(`${where}: entry size ${size} bytes does not match ${count} elements of ${type}`);
    const shard = entry.shardId ?? 0;
    if (shard < 0 || shard >= this.shards) throw problem(`${where} names shard ${shard}; the bundle has ${this.shards}`);
    const pad = (n: number) => String(n).padStart(5, '0');
    const file = `${this.prefix}.data-${pad(shard)}-of-${pad(this.shards)}`;
    const bytes = await this.range(file, offset, size);
    const crc = entry.crc32c ?? 0;
    if (crc !== 0 && maskCrc(crc32c(bytes)) !== crc >>> 0) throw problem(`${where} fails its crc32c check in ${file}`);
    return fromBytes(type, dims, bytes, where);
  }

  private async range(file: string, offset: number, size: number): Promise<Uint8Array> {
    if (offset < 0 || size < 0) throw problem(`${file}: invalid range of ${size} bytes at offset ${offset}`);
    if (this.files.readRange) return this.files.readRange(file, offset, size);
    const whole = await (this.files.readRelative as (p: string) => Promise<Uint8Array>)(file);
    if (offset + size > whole.length)
      throw problem(`${file}: ${size} bytes at offset ${offset} lie beyond the end of the file (${whole.length} bytes)`);
    return whole.subarray(offset, offset + size);
  }
}
