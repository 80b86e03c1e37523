/**
 * The output rows of a 2-D convolution grouped into bands whose windows reach the same filter rows
 * inside the plane. Output row oh (row stride sh, top pad pt, filter height KH, no dilation) reads
 * input rows with filter rows kh ∈ [max(0, pt − oh·sh), min(KH, H + pt − oh·sh)); its other filter
 * rows only multiply the vertical padding. On short planes (a 5×5 filter over 2 rows) that is most
 * of them. Returns flat [oh0, oh1, k0, k1, ...] in output-row order; k1 ≤ k0 when the band's
 * windows lie wholly in the padding.
 */
export function filterRowBands(H: number, OH: number, KH: number, sh: number, pt: number): number[] {
  const bands: number[] = [];
  for (let oh = 0; oh < OH; oh++) {
    const k0 = Math.max(0, pt - oh * sh);
    const k1 = Math.min(KH, H + pt - oh * sh);
    const n = bands.length;
    if (n > 0 && bands[n - 2] === k0 && bands[n - 1] === k1) bands[n - 3] = oh + 1;
    else bands.push(oh, oh + 1, k0, k1);
  }
  return bands;
}
