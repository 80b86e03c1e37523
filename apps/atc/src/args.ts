import type { Diagnostic, Dim } from '@tsge/metadef';
import { diagnostic } from '@tsge/metadef';

/** Options atc understands (GE's names); value-less ones are flags. */
export const OPTIONS = {
  model: 'model file (.onnx, .pb, .pbtxt, model.json, .prototxt, .caffemodel, .mindir, .air, .tflite) or a TensorFlow SavedModel directory',
  signature: 'TensorFlow SavedModel: the signature to compile (default serving_default)',
  weight: 'weights file (Caffe .caffemodel)',
  init_weights: 'Caffe without --weight: initialise the weights from the prototxt fillers with this seed (structure checks only)',
  framework: '0 Caffe, 1 MindSpore, 3 TensorFlow, 5 ONNX, 20 TFLite, tfjs TensorFlow.js (inferred when omitted)',
  output: 'output .om path (".om" is appended when missing)',
  soc_version: 'target: wasm-simd (default) or js',
  input_shape: '"name:1,3,-1,-1;name2:..." input shapes (-1 or a symbol keeps a dim dynamic)',
  input_format: 'NCHW, NHWC or ND (recorded; the layout is taken from the model)',
  dynamic_batch_size: '"1,2,4": one static plan per batch size',
  dynamic_dims: '"1,224;2,448": one static plan per group of dynamic dims',
  out_nodes: '"node:0;node2:1": graph outputs to keep',
  precision_mode:
    'must_keep_origin_dtype (default), force_fp32, force_fp16, allow_fp32_to_fp16, allow_fp32_to_bf16, allow_mix_precision, allow_mix_precision_fp16, allow_mix_precision_bf16',
  oo_level: 'optimization level O0..O3 (default O3)',
  optimization_switch: '"pass:off;pass2:on"',
  disable_reuse_memory: '1: give every tensor its own memory',
  enable_single_stream: 'true: run everything on one stream',
  stream_limit: 'maximum number of streams (default 1; kernels split across threads)',
  log: 'debug, info, warning, error or null (default info)',
  timeout: 'milliseconds: compile in a child process and stop it after this long (TSGE-E7070)',
  mode: '0 compile (default), 1 model or .om to JSON, 6 print an .om summary',
  om: 'the .om file for --mode=1/6',
  json: 'JSON output path for --mode=1',
  dump_graph_after: 'pass name or "all": dump the graph (.air/.json/.dot) after it',
  dump_dir: 'folder for --dump_graph_after (default ./dump)',
  help: 'print this help',
} as const;

export type OptionName = keyof typeof OPTIONS;
const FLAGS = new Set<string>(['help']);

export interface ParsedArgs {
  readonly values: Partial<Record<OptionName, string>>;
  readonly diagnostics: Diagnostic[];
}

/** Parses `--name=value` and `--name value` (GE style); unknown or repeated options are diagnostics. */
export function parseArgs(argv: readonly string[]): ParsedArgs {
  const values: Partial<Record<OptionName, string>> = {};
  const diagnostics: Diagnostic[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const match = /^--?([A-Za-z_][\w-]*)(?:=(.*))?$/s.exec(arg);
    if (!match) {
      diagnostics.push(diagnostic('TSGE-E7001', { option: arg }));
      continue;
    }
    const name = (match[1] as string).replace(/-/g, '_');
    if (!(name in OPTIONS)) {
      diagnostics.push(diagnostic('TSGE-E7001', { option: `--${match[1]}` }, { option: name }));
      if (match[2] === undefined && argv[i + 1] !== undefined && !argv[i + 1]?.startsWith('--')) i++;
      continue;
    }
    let value = match[2];
    if (value === undefined) {
      if (FLAGS.has(name)) value = 'true';
      else if (argv[i + 1] !== undefined && !(argv[i + 1] as string).startsWith('--')) value = argv[++i] as string;
      else {
        diagnostics.push(
          diagnostic('TSGE-E7002', { option: `--${name}`, value: '(none)', reason: 'a value is required' }, { option: name }),
        );
        continue;
      }
    }
    values[name as OptionName] = value;
  }
  return { values, diagnostics };
}

function invalid(option: string, value: string, reason: string): Diagnostic {
  return diagnostic('TSGE-E7002', { option: `--${option}`, value: JSON.stringify(value), reason }, { option });
}

function parseDim(text: string): Dim | undefined {
  const t = text.trim();
  if (/^-?\d+$/.test(t)) {
    const n = Number(t);
    return n >= -1 ? n : undefined;
  }
  return /^[A-Za-z_][\w]*$/.test(t) ? t : undefined;
}

/** `name:1,3,-1,-1;name2:...`; names may contain ':' (the last one separates the dims). */
export function parseInputShapes(text: string, diagnostics: Diagnostic[]): Record<string, Dim[]> | undefined {
  const out: Record<string, Dim[]> = {};
  for (const part of text.split(';').filter((p) => p.trim() !== '')) {
    const at = part.lastIndexOf(':');
    const name = part.slice(0, at).trim();
    const dimsText = part.slice(at + 1).trim();
    const dims = dimsText === '' ? [] : dimsText.split(',').map(parseDim);
    if (at <= 0 || name === '' || dims.some((d) => d === undefined)) {
      diagnostics.push(invalid('input_shape', part, 'expected name:d0,d1,... with integers ≥ -1 or symbols'));
      return undefined;
    }
    out[name] = dims as Dim[];
  }
  return out;
}

/** Positive integers separated by `,`. */
export function parseIntList(option: string, text: string, diagnostics: Diagnostic[]): number[] | undefined {
  const items = text.split(',').map((s) => s.trim());
  const numbers = items.map(Number);
  if (items.some((s) => !/^\d+$/.test(s)) || numbers.some((n) => n <= 0 || !Number.isSafeInteger(n))) {
    diagnostics.push(invalid(option, text, 'expected positive integers separated by ","'));
    return undefined;
  }
  return numbers;
}

/** Groups separated by `;`, values by `,`. */
export function parseDynamicDims(text: string, diagnostics: Diagnostic[]): number[][] | undefined {
  const rows: number[][] = [];
  for (const group of text.split(';').filter((g) => g.trim() !== '')) {
    const row = parseIntList('dynamic_dims', group, diagnostics);
    if (!row) return undefined;
    rows.push(row);
  }
  return rows;
}

/** `pass:off;pass2:on`. */
export function parseSwitches(text: string, diagnostics: Diagnostic[]): Record<string, boolean> | undefined {
  const out: Record<string, boolean> = {};
  for (const part of text.split(';').filter((p) => p.trim() !== '')) {
    const [name, state] = part.split(':').map((s) => s.trim());
    if (!name || (state !== 'on' && state !== 'off')) {
      diagnostics.push(invalid('optimization_switch', part, 'expected name:on or name:off'));
      return undefined;
    }
    out[name] = state === 'on';
  }
  return out;
}

export function parseBoolean(option: string, text: string, diagnostics: Diagnostic[]): boolean | undefined {
  const t = text.trim().toLowerCase();
  if (t === '1' || t === 'true') return true;
  if (t === '0' || t === 'false') return false;
  diagnostics.push(invalid(option, text, 'expected 0/1 or true/false'));
  return undefined;
}

export function invalidOption(option: string, value: string, reason: string): Diagnostic {
  return invalid(option, value, reason);
}
