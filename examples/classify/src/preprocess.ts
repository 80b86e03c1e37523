import { type HostTensor, createTensor } from '@tsge/metadef';
import type { TfliteIoInfo } from '@tsge/parser-tflite';
import type { RgbImage } from './image.js';

export interface Normalisation {
  /** real = (pixel − mean) / std, the range the model was trained on ([-1, 1] for MobileNet). */
  readonly mean: number;
  readonly std: number;
}

/** Bilinear resize (half-pixel centres) of an RGB image to width × height, as float samples. */
export function resizeBilinear(image: RgbImage, width: number, height: number): Float32Array {
  const out = new Float32Array(width * height * 3);
  const sx = image.width / width;
  const sy = image.height / height;
  for (let y = 0; y < height; y++) {
    const fy = Math.min(Math.max((y + 0.5) * sy - 0.5, 0), image.height - 1);
    const y0 = Math.floor(fy);
    const y1 = Math.min(y0 + 1, image.height - 1);
    const wy = fy - y0;
    for (let x = 0; x < width; x++) {
      const fx = Math.min(Math.max((x + 0.5) * sx - 0.5, 0), image.width - 1);
      const x0 = Math.floor(fx);
      const x1 = Math.min(x0 + 1, image.width - 1);
      const wx = fx - x0;
      for (let c = 0; c < 3; c++) {
        const p = (yy: number, xx: number) => image.data[(yy * image.width + xx) * 3 + c] as number;
        const top = p(y0, x0) * (1 - wx) + p(y0, x1) * wx;
        const bottom = p(y1, x0) * (1 - wx) + p(y1, x1) * wx;
        out[(y * width + x) * 3 + c] = top * (1 - wy) + bottom * wy;
      }
    }
  }
  return out;
}

/**
 * The model's input tensor from an image: resized to the input's NHWC size, normalised to the
 * model's real range, then quantized with the input's own scale and zero point when it is an
 * integer input (for MobileNet's uint8 input, scale 1/128 and zero point 128, that gives back the
 * pixel values).
 */
export function imageToInput(image: RgbImage, input: TfliteIoInfo, normalisation: Normalisation): HostTensor {
  const [batch, height, width, channels] = input.shape as [number, number, number, number];
  if (input.shape.length !== 4 || batch !== 1 || channels !== 3 || !(height > 0 && width > 0)) {
    throw new Error(`model input ${input.name} has shape [${input.shape.join(',')}]; expected [1, H, W, 3]`);
  }
  const samples = resizeBilinear(image, width, height);
  const tensor = createTensor(input.dtype as HostTensor['type'], [1, height, width, 3]);
  const data = tensor.data as Float32Array | Uint8Array | Int8Array;
  const q = input.quantization;
  const [lo, hi] = input.dtype === 'uint8' ? [0, 255] : input.dtype === 'int8' ? [-128, 127] : [-Infinity, Infinity];
  for (let i = 0; i < samples.length; i++) {
    const real = ((samples[i] as number) - normalisation.mean) / normalisation.std;
    data[i] = q ? Math.min(hi, Math.max(lo, Math.round(real / q.scale + q.zeroPoint))) : real;
  }
  return tensor;
}
