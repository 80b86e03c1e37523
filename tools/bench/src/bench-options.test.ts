import { TsgeError } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { integerFlag, listFlag, parseFlags } from './bench-options.js';

const flags = { runs: { type: 'string', default: '10' }, json: { type: 'string' }, profile: { type: 'boolean', default: false } } as const;

function codeOf(f: () => unknown): { code: string; message: string } {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(TsgeError);
    return { code: (e as TsgeError).code, message: (e as Error).message };
  }
  throw new Error('expected a throw');
}

describe('bench flags', () => {
  it('reads --flag value, --flag=value and booleans, with defaults', () => {
    expect(parseFlags('bench', flags, ['--runs', '5', '--json=out.json', '--profile'])).toEqual({
      runs: '5',
      json: 'out.json',
      profile: true,
    });
    expect(parseFlags('bench', flags, [])).toEqual({ runs: '10', profile: false });
  });
  it('names an unknown flag and a flag missing its value', () => {
    const unknown = codeOf(() => parseFlags('bench', flags, ['--rnus', '5']));
    expect(unknown.code).toBe('TSGE-E4157');
    expect(unknown.message).toContain('bench option --rnus');
    const missing = codeOf(() => parseFlags('bench', flags, ['--runs']));
    expect(missing.message).toContain('bench option --runs');
  });
  it('checks whole numbers against their range and list items against the allowed ones', () => {
    expect(integerFlag('bench', '--rounds', '0', 10, 0)).toBe(0);
    for (const bad of ['0', '11', '2.5', 'x', ''])
      expect(codeOf(() => integerFlag('bench', '--runs', bad, 10)).message).toContain(
        'bench option --runs: expected an integer from 1 to 10',
      );
    expect(listFlag('bench:llm', '--formats', 'fp32,int4', ['fp32', 'int4'])).toEqual(['fp32', 'int4']);
    expect(codeOf(() => listFlag('bench:llm', '--formats', 'fp16', ['fp32', 'int4'])).message).toContain(
      'bench:llm option --formats: fp16',
    );
  });
});
