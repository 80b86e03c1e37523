import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** One conformance test: a model and its data sets (or, for `light` models, one expected output). */
export interface TestCase {
  readonly name: string;
  readonly modelPath: string;
  readonly layout: 'standard' | 'light';
  /** Standard layout: folders `test_data_set_*`. Light: the expected output files. */
  readonly dataSets: readonly string[];
}

function dataSetsOf(dir: string): string[] {
  return readdirSync(dir)
    .filter((n) => n.startsWith('test_data_set_') && statSync(path.join(dir, n)).isDirectory())
    .sort()
    .map((n) => path.join(dir, n));
}

/**
 * Finds the tests of a suite folder: every subfolder with a `model.onnx`, every `light_<name>.onnx`
 * with its `light_<name>_output_0.pb`, or the folder itself when it is one test.
 */
export function discoverTests(suiteDir: string): TestCase[] {
  const dir = path.resolve(suiteDir);
  if (existsSync(path.join(dir, 'model.onnx'))) {
    return [{ name: path.basename(dir), modelPath: path.join(dir, 'model.onnx'), layout: 'standard', dataSets: dataSetsOf(dir) }];
  }
  const tests: TestCase[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) {
      if (existsSync(path.join(full, 'model.onnx'))) {
        tests.push({ name: entry, modelPath: path.join(full, 'model.onnx'), layout: 'standard', dataSets: dataSetsOf(full) });
      }
    } else if (/^light_.*\.onnx$/.test(entry)) {
      const base = entry.slice(0, -'.onnx'.length);
      const outputs = readdirSync(dir)
        .filter((n) => n.startsWith(`${base}_output_`) && n.endsWith('.pb'))
        .sort()
        .map((n) => path.join(dir, n));
      tests.push({ name: base, modelPath: full, layout: 'light', dataSets: outputs });
    }
  }
  return tests;
}

/** `input_0.pb, input_1.pb, ...` of a data set, in numeric order. */
export function numberedFiles(dataSet: string, prefix: 'input' | 'output'): string[] {
  return readdirSync(dataSet)
    .map((n) => ({ n, m: new RegExp(`^${prefix}_(\\d+)\\.pb$`).exec(n) }))
    .filter((x) => x.m)
    .sort((a, b) => Number(a.m?.[1]) - Number(b.m?.[1]))
    .map((x) => path.join(dataSet, x.n));
}
