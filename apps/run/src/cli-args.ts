import { TsgeError } from '@tsge/metadef';

export interface RunArgs {
  model: string;
  inputs: Map<string, string>;
  inputShapes: Map<string, number[]>;
  outputDir?: string;
  loop: number;
  warmup: number;
  threads?: number;
  profile?: string;
  compare?: 'onnxruntime';
  reference?: string;
  json: boolean;
  seed: number;
  mode?: 'sink' | 'host';
  /** The device by name ('cpu', 'js'); a model file is compiled for target js on 'js'. */
  device?: string;
  /** Compile the WebAssembly modules of the `.om`'s KERNELS partition (off: such a model fails to load). */
  allowModelWasm: boolean;
  /** Deadline of each run in milliseconds. */
  timeoutMs?: number;
  help: boolean;
}

const FLAGS = new Set([
  'model',
  'input',
  'input-shape',
  'output-dir',
  'loop',
  'warmup',
  'threads',
  'profile',
  'compare',
  'reference',
  'json',
  'seed',
  'mode',
  'device',
  'allow-model-wasm',
  'timeout',
  'help',
]);
const BOOLEAN_FLAGS = new Set(['json', 'help', 'allow-model-wasm']);

export const USAGE = `usage: tsge-run --model <file.om | model file> [options]
  --input name=file.npy      input tensor (repeatable); random inputs (seeded) when omitted
  --input-shape "name:1,3,224,224;name2:..."  concrete shapes for symbolic input dims
  --output-dir dir           write outputs as .npy files
  --loop N                   timed runs (default 1); prints min/median/p90/max
  --warmup N                 untimed runs first (default 0)
  --threads N                worker threads (default: the machine's cores)
  --mode sink|host           execution mode (default: the model's)
  --device cpu|js            device (default: the one for the .om's target; js: plain ArrayBuffers, no workers)
  --profile trace.json       write a Chrome trace of per-task timings
  --compare onnxruntime      run the same ONNX model in onnxruntime-node and print errors per output
  --reference model.onnx     the ONNX model to compare with when --model is an .om
  --seed N                   seed for random inputs (default 42)
  --timeout MS               stop a run that takes longer (TSGE-E6080); the model stays usable
  --allow-model-wasm         compile WebAssembly modules stored in the .om (trusted files only)
  --json                     print a JSON report instead of text
  --help`;

function integer(option: string, value: string, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw TsgeError.of('TSGE-E7002', { option, value, reason: `expected an integer ≥ ${min}` });
  return n;
}

/** Parses `--opt value` and `--opt=value` forms. */
export function parseRunArgs(argv: readonly string[]): RunArgs {
  const args: RunArgs = {
    model: '',
    inputs: new Map(),
    inputShapes: new Map(),
    loop: 1,
    warmup: 0,
    json: false,
    seed: 42,
    allowModelWasm: false,
    help: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const raw = argv[i] as string;
    if (!raw.startsWith('--')) throw TsgeError.of('TSGE-E7001', { option: raw });
    const eq = raw.indexOf('=');
    const name = raw.slice(2, eq < 0 ? undefined : eq);
    if (!FLAGS.has(name)) throw TsgeError.of('TSGE-E7001', { option: `--${name}` });
    let value: string;
    if (BOOLEAN_FLAGS.has(name)) value = eq < 0 ? 'true' : raw.slice(eq + 1);
    else if (eq >= 0) value = raw.slice(eq + 1);
    else {
      const next = argv[++i];
      if (next === undefined) throw TsgeError.of('TSGE-E7002', { option: `--${name}`, value: '', reason: 'a value is required' });
      value = next;
    }
    const option = `--${name}`;
    switch (name) {
      case 'model':
        args.model = value;
        break;
      case 'input': {
        const at = value.indexOf('=');
        if (at <= 0) throw TsgeError.of('TSGE-E7002', { option, value, reason: 'expected name=file.npy' });
        args.inputs.set(value.slice(0, at), value.slice(at + 1));
        break;
      }
      case 'input-shape':
        for (const [k, v] of parseShapeList(option, value)) args.inputShapes.set(k, v);
        break;
      case 'output-dir':
        args.outputDir = value;
        break;
      case 'loop':
        args.loop = integer(option, value, 1);
        break;
      case 'warmup':
        args.warmup = integer(option, value, 0);
        break;
      case 'threads':
        args.threads = integer(option, value, 1);
        break;
      case 'seed':
        args.seed = integer(option, value, 0);
        break;
      case 'profile':
        args.profile = value;
        break;
      case 'reference':
        args.reference = value;
        break;
      case 'mode':
        if (value !== 'sink' && value !== 'host') throw TsgeError.of('TSGE-E7002', { option, value, reason: 'expected sink or host' });
        args.mode = value;
        break;
      case 'device':
        // the executor checks the name against its device registry (TSGE-E6200 lists them)
        args.device = value;
        break;
      case 'compare':
        if (value !== 'onnxruntime') throw TsgeError.of('TSGE-E7002', { option, value, reason: 'only onnxruntime is supported' });
        args.compare = value;
        break;
      case 'json':
        args.json = value !== 'false';
        break;
      case 'timeout':
        args.timeoutMs = integer(option, value, 1);
        break;
      case 'allow-model-wasm':
        args.allowModelWasm = value !== 'false';
        break;
      case 'help':
        args.help = value !== 'false';
        break;
    }
  }
  if (!args.help && !args.model) throw TsgeError.of('TSGE-E7004', { option: '--model' });
  return args;
}

/** `"x:1,3,224,224;y:1,10"` → entries. */
export function parseShapeList(option: string, value: string): [string, number[]][] {
  const out: [string, number[]][] = [];
  for (const part of value.split(';').filter((p) => p.trim())) {
    const colon = part.lastIndexOf(':');
    if (colon <= 0) throw TsgeError.of('TSGE-E7002', { option, value: part, reason: 'expected name:d0,d1,...' });
    const dims = part
      .slice(colon + 1)
      .split(',')
      .map((d) => Number(d.trim()));
    if (dims.some((d) => !Number.isInteger(d) || d < 0))
      throw TsgeError.of('TSGE-E7002', { option, value: part, reason: 'dims must be non-negative integers' });
    out.push([part.slice(0, colon).trim(), dims]);
  }
  return out;
}
