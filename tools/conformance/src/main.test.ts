import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const suite = path.resolve(process.cwd(), '../shared/testdata/onnx-backend/node');
const main = path.resolve(process.cwd(), 'tools/conformance/src/main.ts');

/** 30 small, fast node tests across elementwise, shape, reduction, control-flow and sequence ops. */
const SUBSET = [
  'test_abs',
  'test_add',
  'test_add_bcast',
  'test_relu',
  'test_identity',
  'test_neg',
  'test_sigmoid',
  'test_exp',
  'test_sqrt',
  'test_mul',
  'test_sub',
  'test_div',
  'test_matmul_2d',
  'test_reshape_reordered_all_dims',
  'test_transpose_default',
  'test_concat_1d_axis_0',
  'test_unsqueeze_axis_0',
  'test_squeeze',
  'test_slice',
  'test_gather_0',
  'test_reduce_sum_default_axes_keepdims_example',
  'test_softmax_example',
  'test_cast_FLOAT_to_DOUBLE',
  'test_where_example',
  'test_if',
  'test_loop11',
  'test_scan9_sum',
  'test_sequence_insert_at_back',
  'test_optional_has_element_empty_optional_input',
  'test_range_float_type_positive_delta_expanded',
];

interface Report {
  total: number;
  passed: number;
  failed: number;
  skipped: number;
  errors: number;
  tests: { name: string; status: string; reason: string }[];
}

function run(args: string[]): { stdout: string; status: number } {
  try {
    const stdout = execFileSync(process.execPath, ['--conditions=@tsge/source', '--import', 'tsx', main, '--suite', suite, ...args], {
      encoding: 'utf8',
    });
    return { stdout, status: 0 };
  } catch (error) {
    const e = error as { stdout: string; status: number };
    return { stdout: e.stdout, status: e.status };
  }
}

describe('pnpm conformance (interpreter engine)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'conformance-'));

  it('runs 30 node tests end to end and writes the JSON report', () => {
    const json = path.join(dir, 'report.json');
    const { stdout } = run(['--engine', 'interpreter', '--filter', SUBSET.join(','), '--json', json]);
    const report = JSON.parse(readFileSync(json, 'utf8')) as Report;
    // filters match substrings: test_add also selects test_add_bcast and friends
    for (const name of SUBSET) expect(report.tests.map((t) => t.name)).toContain(name);
    expect(report.passed + report.failed + report.skipped).toBe(report.total);
    expect(report.errors).toBe(0);
    expect(stdout.trim().split('\n').at(-1)).toBe(`${report.passed} passed, ${report.failed} failed, ${report.skipped} skipped`);
    for (const t of report.tests.filter((t) => t.status === 'failed')) expect(t.reason).not.toBe('');
    const status = new Map(report.tests.map((t) => [t.name, t.status]));
    for (const name of ['test_abs', 'test_add', 'test_relu', 'test_identity', 'test_if', 'test_loop11'])
      expect(status.get(name)).toBe('passed');
  });

  it('fails --ci only for tests missing from the expected-failures list and lists ones that now pass', () => {
    const list = path.join(dir, 'expected.txt');
    writeFileSync(list, 'test_abs  # pretend it was broken\n');
    const ci = run(['--engine', 'interpreter', '--filter', 'test_abs,test_relu', '--expected-failures', list, '--ci', '--timeout', '1']);
    // with a 1 ms limit every test times out: test_relu is a regression, test_abs a known failure
    expect(ci.status).toBe(1);
    expect(ci.stdout).toMatch(/REGRESSION test_relu/);
    expect(ci.stdout).toMatch(/FAIL \(known\) test_abs: timed out/);
    const ok = run(['--engine', 'interpreter', '--filter', 'test_abs', '--expected-failures', list, '--ci']);
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/NOW PASSING .*test_abs/);
  });

  it('runs the default pipeline engine (@tsge/ge parse → build → load → run)', () => {
    const json = path.join(dir, 'pipeline.json');
    run(['--filter', 'test_abs,test_relu', '--json', json]);
    const report = JSON.parse(readFileSync(json, 'utf8')) as Report;
    expect(report.errors).toBe(0);
    const status = new Map(report.tests.map((t) => [t.name, t.status]));
    expect([status.get('test_abs'), status.get('test_relu')]).toEqual(['passed', 'passed']);
  });
});
