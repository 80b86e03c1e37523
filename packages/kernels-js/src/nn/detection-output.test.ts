import { type AttrValue, attr } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { detectionOutputKernel } from './detection-output.js';
import { f32, runOp, values } from './test-support.fixture.js';

// Hand-computed against Caffe SSD's DetectionOutput semantics (decode, per-class NMS, keep_top_k).
const PRIOR_BOXES = [0.1, 0.1, 0.3, 0.3, 0.12, 0.12, 0.32, 0.32, 0.5, 0.5, 0.9, 0.7];
const VARIANCES = [0.1, 0.1, 0.2, 0.2, 0.1, 0.1, 0.2, 0.2, 0.1, 0.1, 0.2, 0.2];
const PRIORS = f32([1, 2, 12], [...PRIOR_BOXES, ...VARIANCES]);
// CORNER_SIZE offsets: p0 → [0.12, 0.1, 0.3, 0.26], p1 unchanged, p2 → [0.5, 0.5, 0.98, 0.7]
const LOC = f32([1, 12], [1, 0, 0, -1, 0, 0, 0, 0, 0, 0, 1, 0]);
// per prior: background, class 1, class 2
const CONF = f32([1, 9], [0.1, 0.6, 0.3, 0.2, 0.7, 0.1, 0.3, 0.2, 0.5]);

function detect(attrs: Record<string, AttrValue>, inputs = [LOC, CONF, PRIORS]) {
  const [y] = runOp([detectionOutputKernel], 'DetectionOutput', inputs, { num_classes: attr.int(3), ...attrs });
  const v = values(y);
  return { dims: y?.dims, rows: Array.from({ length: v.length / 7 }, (_, r) => v.slice(r * 7, r * 7 + 7)) };
}

function expectRows(actual: number[][], expected: number[][]) {
  expect(actual.length).toBe(expected.length);
  for (const [r, row] of actual.entries())
    for (const [k, v] of row.entries()) expect(v, `row ${r} column ${k}`).toBeCloseTo(expected[r]?.[k] as number, 6);
}

const BASE = {
  code_type: attr.string('CORNER_SIZE'),
  nms_threshold: attr.float(0.45),
  confidence_threshold: attr.float(0.25),
};

describe('tsge::DetectionOutput', () => {
  it('decodes CORNER_SIZE, suppresses by IoU per class and lists labels ascending, scores descending', () => {
    // class 1: p1 (0.7) keeps, p0 (0.6) overlaps it by IoU 0.0252 / 0.0436 = 0.578 > 0.45; class 2: p2, p0 disjoint
    const { dims, rows } = detect(BASE);
    expect(dims).toEqual([1, 1, 3, 7]);
    expectRows(rows, [
      [0, 1, 0.7, 0.12, 0.12, 0.32, 0.32],
      [0, 2, 0.5, 0.5, 0.5, 0.98, 0.7],
      [0, 2, 0.3, 0.12, 0.1, 0.3, 0.26],
    ]);
  });
  it('keep_top_k keeps the best scores over all classes, top_k the best candidates of each', () => {
    expectRows(detect({ ...BASE, keep_top_k: attr.int(2) }).rows, [
      [0, 1, 0.7, 0.12, 0.12, 0.32, 0.32],
      [0, 2, 0.5, 0.5, 0.5, 0.98, 0.7],
    ]);
    expectRows(detect({ ...BASE, top_k: attr.int(1) }).rows, [
      [0, 1, 0.7, 0.12, 0.12, 0.32, 0.32],
      [0, 2, 0.5, 0.5, 0.5, 0.98, 0.7],
    ]);
  });
  it('eta lowers the IoU threshold after each kept box (while above 0.5)', () => {
    // IoU 0.578 passes 0.6, not 0.6 · 0.9 = 0.54
    expect(detect({ ...BASE, nms_threshold: attr.float(0.6) }).rows.filter((r) => r[1] === 1)).toHaveLength(2);
    expect(detect({ ...BASE, nms_threshold: attr.float(0.6), eta: attr.float(0.9) }).rows.filter((r) => r[1] === 1)).toHaveLength(1);
  });
  it('decodes CENTER_SIZE with the variances, or with them in the target (priors without variances)', () => {
    const prior = [0.5, 0.5, 0.9, 0.7]; // w 0.4, h 0.2, centre (0.7, 0.6)
    const conf = f32([1, 2], [0.1, 0.9]);
    const attrs = { num_classes: attr.int(2), code_type: attr.string('CENTER_SIZE') };
    // cx = 0.1·5·0.4 + 0.7 = 0.9, w = exp(0.2·5·ln 2)·0.4 = 0.8
    const withVariance = detect(attrs, [f32([1, 4], [5, 0, 5 * Math.LN2, 0]), conf, f32([1, 2, 4], [...prior, 0.1, 0.1, 0.2, 0.2])]);
    expectRows(withVariance.rows, [[0, 1, 0.9, 0.5, 0.5, 1.3, 0.7]]);
    const encoded = detect({ ...attrs, variance_encoded_in_target: attr.int(1) }, [
      f32([1, 4], [0.5, 0, Math.LN2, 0]),
      conf,
      f32([1, 1, 4], prior),
    ]);
    expectRows(encoded.rows, [[0, 1, 0.9, 0.5, 0.5, 1.3, 0.7]]);
  });
  it('CORNER adds the scaled offsets; per-class locations use their own class boxes', () => {
    const loc = f32([1, 12], [9, 9, 9, 9, 1, 1, 1, 1, 2, 2, 2, 2]); // background, class 1, class 2 for one prior
    const { rows } = detect({ share_location: attr.int(0), code_type: attr.string('CORNER'), confidence_threshold: attr.float(0.25) }, [
      loc,
      f32([1, 3], [0.2, 0.3, 0.5]),
      f32([1, 2, 4], [0.1, 0.1, 0.3, 0.3, 0.1, 0.1, 0.2, 0.2]),
    ]);
    expectRows(rows, [
      [0, 1, 0.3, 0.2, 0.2, 0.5, 0.5],
      [0, 2, 0.5, 0.3, 0.3, 0.7, 0.7],
    ]);
  });
  it('with nothing above the threshold, one row of -1 per image (Caffe)', () => {
    const loc = f32([2, 12], [...values(LOC), ...values(LOC)]);
    const conf = f32([2, 9], [...values(CONF), ...values(CONF)]);
    const { dims, rows } = detect({ ...BASE, confidence_threshold: attr.float(0.95) }, [loc, conf, PRIORS]);
    expect(dims).toEqual([1, 1, 2, 7]);
    expect(rows).toEqual([
      [0, -1, -1, -1, -1, -1, -1],
      [1, -1, -1, -1, -1, -1, -1],
    ]);
  });
  it('refuses inputs that do not fit num_classes and the priors, and bad attributes', () => {
    expect(() => detect(BASE, [f32([1, 8], new Array(8).fill(0)), CONF, PRIORS])).toThrow(/loc \[1,8\] does not hold 3 priors/);
    expect(() => detect(BASE, [LOC, f32([1, 6], new Array(6).fill(0)), PRIORS])).toThrow(/conf \[1,6\]/);
    expect(() => detect(BASE, [LOC, CONF, f32([1, 1, 12], PRIOR_BOXES)])).toThrow(/priors \[1,1,12\] must be/);
    expect(() => detect({ ...BASE, code_type: attr.string('CORNERS') })).toThrow(/code_type "CORNERS"/);
    expect(() => detect({ ...BASE, background_label_id: attr.int(3) })).toThrow(/background_label_id 3/);
    expect(() => detect({ ...BASE, eta: attr.float(1.5) })).toThrow(/eta 1.5/);
  });
});
