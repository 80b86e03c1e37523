import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readExpectedFailures, writeExpectedFailures } from './expected-failures.js';

describe('expected-failures list', () => {
  it('reads `name  # reason` lines and rewrites them from a run, keeping tests the run did not cover', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'expected-')), 'list.txt');
    writeFileSync(file, '# header comment\ntest_a  # old reason\n\ntest_b\ntest_c  # outside the filter\n');
    const list = readExpectedFailures(file);
    expect([...list]).toEqual([
      ['test_a', 'old reason'],
      ['test_b', ''],
      ['test_c', 'outside the filter'],
    ]);
    writeExpectedFailures(file, list, [
      { name: 'test_a', status: 'passed', reason: '', error: false },
      { name: 'test_b', status: 'failed', reason: 'output 0:\n  wrong', error: false },
      { name: 'test_d', status: 'failed', reason: 'no kernel', error: false },
    ]);
    expect(readFileSync(file, 'utf8')).toBe('test_b  # output 0: wrong\ntest_c  # outside the filter\ntest_d  # no kernel\n');
    expect(readExpectedFailures(path.join(path.dirname(file), 'missing.txt')).size).toBe(0);
  });
});
