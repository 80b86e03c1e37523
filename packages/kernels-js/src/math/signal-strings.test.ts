import { attr } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { compileFullMatch } from '@tsge/ops/kernel-support';
import { splitString } from './strings.js';
import { info, infer, run, tensor, values } from './test-helpers.fixture.js';

describe('signal', () => {
  it('computes a real DFT, its one-sided form and the inverse', () => {
    const x = tensor('float64', [1, 4, 1], [1, 2, 3, 4]);
    const [y] = run('DFT', [x, undefined, tensor('int64', [], [1])]);
    expect(y!.dims).toEqual([1, 4, 2]);
    const v = values(y!) as number[];
    const expected = [10, 0, -2, 2, -2, 0, -2, -2];
    v.forEach((value, i) => {
      expect(value).toBeCloseTo(expected[i]!, 9);
    });
    const [half] = run('DFT', [x, undefined, tensor('int64', [], [1])], { onesided: attr.int(1) });
    expect(half!.dims).toEqual([1, 3, 2]);
    const [back] = run('DFT', [y!, undefined, tensor('int64', [], [1])], { inverse: attr.int(1) });
    (values(back!) as number[]).forEach((value, i) => {
      expect(value).toBeCloseTo(i % 2 === 0 ? i / 2 + 1 : 0, 9);
    });
    const [real] = run('DFT', [half!, undefined, tensor('int64', [], [1])], { inverse: attr.int(1), onesided: attr.int(1) });
    expect(real!.dims).toEqual([1, 4, 1]);
    (values(real!) as number[]).forEach((value, i) => {
      expect(value).toBeCloseTo(i + 1, 9);
    });
    expect(infer('DFT', [info('float32', ['B', 8, 1])], { onesided: attr.int(1), axis: attr.int(1) })[0]!.shape).toEqual(['B', 5, 2]);
  });
  it('agrees with the direct sum for power-of-two and other lengths', () => {
    for (const n of [6, 8, 16]) {
      const signal = Array.from({ length: n }, (_, t) => Math.sin(t * 1.3) + t / n);
      const [y] = run('DFT', [tensor('float64', [n, 1], signal), undefined, tensor('int64', [], [0])]);
      const v = values(y!) as number[];
      for (let f = 0; f < n; f++) {
        let re = 0;
        let im = 0;
        for (let t = 0; t < n; t++) {
          re += signal[t]! * Math.cos((2 * Math.PI * f * t) / n);
          im -= signal[t]! * Math.sin((2 * Math.PI * f * t) / n);
        }
        expect(v[2 * f]).toBeCloseTo(re, 9);
        expect(v[2 * f + 1]).toBeCloseTo(im, 9);
      }
    }
  });
  it('frames signals with STFT', () => {
    const signal = tensor('float32', [1, 6, 1], [1, 1, 1, 1, 1, 1]);
    const [y] = run('STFT', [signal, tensor('int64', [], [2]), undefined, tensor('int64', [], [4])]);
    expect(y!.dims).toEqual([1, 2, 3, 2]);
    const v = values(y!) as number[];
    expect(v[0]).toBeCloseTo(4, 6);
    expect(Math.abs(v[2]!)).toBeLessThan(1e-6);
  });
  it('builds windows and the mel matrix', () => {
    const hann = values(run('HannWindow', [tensor('int32', [], [4])])[0]!) as number[];
    [0, 0.5, 1, 0.5].forEach((e, i) => {
      expect(hann[i]).toBeCloseTo(e, 6);
    });
    const symmetric = values(run('HammingWindow', [tensor('int32', [], [3])], { periodic: attr.int(0) })[0]!) as number[];
    expect(symmetric[1]).toBeCloseTo(1, 6);
    const blackman = values(run('BlackmanWindow', [tensor('int64', [], [2])], { output_datatype: attr.int(11) })[0]!) as number[];
    expect(blackman[0]).toBeCloseTo(0, 9);
    const [mel] = run('MelWeightMatrix', [
      tensor('int32', [], [8]),
      tensor('int32', [], [16]),
      tensor('int32', [], [8192]),
      tensor('float32', [], [0]),
      tensor('float32', [], [4096]),
    ]);
    expect(mel!.dims).toEqual([9, 8]);
    const peaks = (values(mel!) as number[]).filter((v) => v === 1).length;
    expect(peaks).toBeGreaterThan(0);
  });
});

describe('strings', () => {
  it('normalizes case and removes stopwords', () => {
    const x = tensor('string', [4], ['monday', 'tuesday', 'Monday', 'x']);
    const [y] = run('StringNormalizer', [x], { case_change_action: attr.string('UPPER'), stopwords: attr.strings(['monday']) });
    expect(values(y!)).toEqual(['TUESDAY', 'X']);
    const [empty] = run('StringNormalizer', [tensor('string', [1, 1], ['monday'])], { stopwords: attr.strings(['monday']) });
    expect(empty!.dims).toEqual([1, 1]);
    expect(values(empty!)).toEqual(['']);
  });
  it('concatenates with broadcasting and splits like Python', () => {
    expect(values(run('StringConcat', [tensor('string', [2], ['a', 'b']), tensor('string', [], ['!'])])[0]!)).toEqual(['a!', 'b!']);
    expect(splitString('  a  b c ', '', -1)).toEqual(['a', 'b', 'c']);
    expect(splitString('a,,b', ',', -1)).toEqual(['a', '', 'b']);
    expect(splitString('a b c', '', 1)).toEqual(['a', 'b c']);
    const [y, z] = run('StringSplit', [tensor('string', [2], ['a-b-c', 'd'])], { delimiter: attr.string('-') }, 2);
    expect(y!.dims).toEqual([2, 3]);
    expect(values(y!)).toEqual(['a', 'b', 'c', 'd', '', '']);
    expect(values(z!)).toEqual([3, 1]);
  });
  it('matches whole strings against a pattern and rejects invalid ones', () => {
    const [y] = run('RegexFullMatch', [tensor('string', [3], ['www.google.com', 'google.com', 'x'])], {
      pattern: attr.string('www\\.[\\w.-]+\\.\\bcom\\b'),
    });
    expect(values(y!)).toEqual([1, 0, 0]);
    expect(compileFullMatch('(')).toBeUndefined();
    expect(() => infer('RegexFullMatch', [info('string', [1])], { pattern: attr.string('[') })).toThrow(/regex/);
  });
  it('counts n-grams with skips in TfIdfVectorizer', () => {
    const x = tensor('int32', [2, 6], [1, 1, 3, 3, 3, 7, 8, 6, 7, 5, 6, 8]);
    const attrs = {
      min_gram_length: attr.int(2),
      max_gram_length: attr.int(2),
      max_skip_count: attr.int(0),
      mode: attr.string('TF'),
      ngram_counts: attr.ints([0, 4]),
      ngram_indexes: attr.ints([0, 1, 2, 3, 4, 5, 6]),
      pool_int64s: attr.ints([2, 3, 5, 4, 5, 6, 7, 8, 6, 7]),
    };
    const [y] = run('TfIdfVectorizer', [x], attrs);
    expect(y!.dims).toEqual([2, 7]);
    expect(values(y!)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1]);
    expect(infer('TfIdfVectorizer', [info('int32', ['N', 6])], attrs)[0]!.shape).toEqual(['N', 7]);
  });
});
