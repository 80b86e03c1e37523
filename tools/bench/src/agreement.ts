// Whether consecutive `pnpm bench --json` runs agree: every latency ratio they share (tsge/ort-web,
// tsge/ort-node, tsge/LiteRT, tsge/float, tsge/tfjs-wasm and the geomeans) with its largest deviation
// from the runs' mean. `pnpm bench:agree` (agree.ts) prints it.
export interface BenchJson {
  readonly results?: readonly { id: string; error?: string; ratios: Record<string, number | undefined> }[];
  readonly tflite?: readonly { id: string; error?: string; ratios: Record<string, number | undefined> }[];
  readonly tfjs?: readonly { id: string; error?: string; tsgeOverTfjs?: number }[];
}

/** `${row} ${ratio}` → value, for one bench JSON. Load ratios are left out: one load per process is not a latency. */
export function benchRatios(json: BenchJson): Map<string, number> {
  const out = new Map<string, number>();
  const put = (key: string, v: number | undefined): void => {
    if (v !== undefined && Number.isFinite(v) && v > 0) out.set(key, v);
  };
  const geo = (prefix: string, keys: readonly string[]): void => {
    const xs = keys.map((k) => out.get(k)).filter((x): x is number => x !== undefined);
    if (xs.length === keys.length && xs.length > 1) put(prefix, Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length));
  };
  const onnx = (json.results ?? []).filter((r) => !r.error);
  for (const r of onnx) {
    put(`${r.id} tsge/web`, r.ratios.tsgeOverWeb);
    put(`${r.id} tsge/node`, r.ratios.tsgeOverNode);
  }
  geo(
    'geomean tsge/web',
    onnx.map((r) => `${r.id} tsge/web`),
  );
  geo(
    'geomean tsge/node',
    onnx.map((r) => `${r.id} tsge/node`),
  );
  for (const r of (json.tflite ?? []).filter((r) => !r.error)) {
    put(`${r.id} tsge/LiteRT`, r.ratios.tsgeOverLiteRt);
    put(`${r.id} tsge/float`, r.ratios.tsgeOverFloat);
  }
  const tfjs = (json.tfjs ?? []).filter((r) => !r.error);
  for (const r of tfjs) put(`${r.id} tsge/tfjs-wasm`, r.tsgeOverTfjs);
  geo(
    'geomean tsge/tfjs-wasm',
    tfjs.map((r) => `${r.id} tsge/tfjs-wasm`),
  );
  return out;
}

export interface Agreement {
  readonly key: string;
  readonly values: readonly number[];
  readonly mean: number;
  /** Largest |value − mean| / mean. */
  readonly deviation: number;
}

/** Every ratio present in all runs, with its largest relative deviation from the runs' mean. */
export function agreement(runs: readonly Map<string, number>[]): Agreement[] {
  const first = runs[0];
  if (!first) return [];
  const rows: Agreement[] = [];
  for (const key of first.keys()) {
    const values = runs.map((r) => r.get(key));
    if (values.some((v) => v === undefined)) continue;
    const xs = values as number[];
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    rows.push({ key, values: xs, mean, deviation: Math.max(...xs.map((x) => Math.abs(x - mean) / mean)) });
  }
  return rows;
}
