import { decode as decodePng } from 'fast-png';
import jpeg from 'jpeg-js';

/** An 8-bit RGB image, rows top to bottom. */
export interface RgbImage {
  readonly width: number;
  readonly height: number;
  /** width·height·3 bytes, R G B per pixel. */
  readonly data: Uint8Array;
}

/** Decodes a BMP (read here), PNG (fast-png) or JPEG (jpeg-js) by its signature. */
export function decodeImage(bytes: Uint8Array, name = 'image'): RgbImage {
  if (bytes[0] === 0x42 && bytes[1] === 0x4d) return decodeBmp(bytes, name);
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return fromPng(bytes);
  if (bytes[0] === 0xff && bytes[1] === 0xd8) {
    const image = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true, maxMemoryUsageInMB: 512 });
    return fromChannels(image.width, image.height, image.data, 4, 255);
  }
  throw new Error(`${name}: not a BMP, PNG or JPEG file`);
}

function fromPng(bytes: Uint8Array): RgbImage {
  const png = decodePng(bytes);
  let data = png.data as Uint8Array | Uint16Array;
  let channels = png.channels;
  if (png.palette) {
    // indexed colour: expand through the palette
    const palette = png.palette;
    const rgb = new Uint8Array(png.width * png.height * 3);
    for (let i = 0; i < png.width * png.height; i++) {
      const entry = palette[data[i] as number] ?? [0, 0, 0];
      rgb.set([entry[0] ?? 0, entry[1] ?? 0, entry[2] ?? 0], i * 3);
    }
    data = rgb;
    channels = 3;
  }
  return fromChannels(png.width, png.height, data, channels, png.depth === 16 ? 65535 : (1 << png.depth) - 1);
}

/** Gray, gray+alpha, RGB or RGBA samples of any depth → 8-bit RGB (alpha dropped). */
function fromChannels(width: number, height: number, samples: ArrayLike<number>, channels: number, max: number): RgbImage {
  const data = new Uint8Array(width * height * 3);
  const scale = 255 / max;
  for (let i = 0; i < width * height; i++) {
    for (let c = 0; c < 3; c++) {
      const source = channels >= 3 ? c : 0;
      data[i * 3 + c] = Math.round((samples[i * channels + source] as number) * scale);
    }
  }
  return { width, height, data };
}

/** Uncompressed 24- and 32-bit BMP (any info header size, bottom-up or top-down rows). */
function decodeBmp(bytes: Uint8Array, name: string): RgbImage {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 54) throw new Error(`${name}: BMP header is truncated`);
  const pixelOffset = view.getUint32(10, true);
  const width = view.getInt32(18, true);
  const rawHeight = view.getInt32(22, true);
  const bits = view.getUint16(28, true);
  const compression = view.getUint32(30, true);
  const height = Math.abs(rawHeight);
  if (width <= 0 || height === 0 || width > 1 << 15 || height > 1 << 15)
    throw new Error(`${name}: BMP size ${width}x${rawHeight} is not supported`);
  // BI_RGB, or BI_BITFIELDS with the standard 32-bit masks
  if ((bits !== 24 && bits !== 32) || (compression !== 0 && !(compression === 3 && bits === 32))) {
    throw new Error(`${name}: only uncompressed 24/32-bit BMP is supported (this one has ${bits} bits, compression ${compression})`);
  }
  const bytesPerPixel = bits / 8;
  const stride = Math.ceil((width * bytesPerPixel) / 4) * 4;
  if (pixelOffset + stride * height > bytes.length) throw new Error(`${name}: BMP pixel data is truncated`);
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    const row = pixelOffset + stride * (rawHeight > 0 ? height - 1 - y : y);
    for (let x = 0; x < width; x++) {
      const at = row + x * bytesPerPixel;
      const out = (y * width + x) * 3;
      data[out] = bytes[at + 2] as number;
      data[out + 1] = bytes[at + 1] as number;
      data[out + 2] = bytes[at] as number;
    }
  }
  return { width, height, data };
}
