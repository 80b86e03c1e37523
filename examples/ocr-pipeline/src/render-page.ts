import { GlobalFonts, createCanvas } from '@napi-rs/canvas';
import type { HostTensor } from '@tsge/metadef';

const FONT = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf'; // Debian fonts-dejavu-core

/** Renders lines of text, black on white, one per row band: an RGB uint8 [H, W, 3] page. */
export function renderPage(lines: readonly string[], options: { height: number; width: number; fontSize?: number }): HostTensor {
  if (!GlobalFonts.has('DejaVu Sans')) GlobalFonts.registerFromPath(FONT, 'DejaVu Sans');
  const { height, width } = options;
  const size = options.fontSize ?? 24;
  const canvas = createCanvas(width, height);
  const g = canvas.getContext('2d');
  g.fillStyle = 'white';
  g.fillRect(0, 0, width, height);
  g.fillStyle = 'black';
  g.font = `${size}px "DejaVu Sans"`;
  const band = height / lines.length;
  lines.forEach((line, i) => {
    g.fillText(line, Math.round(width * 0.06), Math.round(band * i + band / 2 + size * 0.35));
  });
  const rgba = g.getImageData(0, 0, width, height).data;
  const rgb = new Uint8Array(width * height * 3);
  for (let p = 0; p < width * height; p++) {
    rgb[p * 3] = rgba[p * 4] as number;
    rgb[p * 3 + 1] = rgba[p * 4 + 1] as number;
    rgb[p * 3 + 2] = rgba[p * 4 + 2] as number;
  }
  return { type: 'uint8', dims: [height, width, 3], data: rgb };
}

/** Levenshtein distance, for character accuracy (1 - distance / reference length). */
export function editDistance(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const cur = [i];
    for (let j = 1; j <= y.length; j++)
      cur[j] = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + (x[i - 1] === y[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[y.length] as number;
}

export function characterAccuracy(expected: readonly string[], got: readonly string[]): number {
  const reference = expected.join('\n');
  return 1 - editDistance(reference, got.join('\n')) / [...reference].length;
}
