// OpenCV's dnn module (opencv.js, a pinned devDependency) as the reference runtime for Caffe nets.
import { createRequire } from 'node:module';

/** The slice of opencv.js these tests use. */
interface Mat {
  readonly data32F: Float32Array;
  matSize: number[];
  delete(): void;
}
interface OpenCv {
  FS: { writeFile(path: string, data: Uint8Array): void; unlink(path: string): void };
  readNetFromCaffe(prototxt: string, caffemodel: string): { setInput(blob: Mat): void; forward(name?: string): Mat; delete(): void };
  matFromArray(rows: number, cols: number, type: number, data: ArrayLike<number>): Mat;
  blobFromImage(image: Mat, scale: number, size: unknown, mean: unknown, swapRB: boolean, crop: boolean): Mat;
  Size: new (w: number, h: number) => unknown;
  Scalar: new (...v: number[]) => unknown;
  CV_32FC1: number;
  CV_32FC2: number;
  CV_32FC3: number;
  CV_32FC4: number;
}

let loading: Promise<{ cv: OpenCv }> | undefined;

/** Loads opencv.js once. Its module object is a thenable that resolves to itself, so it is wrapped. */
export function openCv(): Promise<{ cv: OpenCv }> {
  loading ??= new Promise((resolve) => {
    const module = createRequire(import.meta.url)('@techstark/opencv-js') as { then?: (f: (cv: OpenCv) => void) => void } & OpenCv;
    if (typeof module.then === 'function') module.then((cv) => resolve({ cv }));
    else resolve({ cv: module });
  });
  return loading;
}

let fileCounter = 0;

/**
 * Runs a Caffe net on one NCHW float32 input with batch 1 and 1-4 channels and returns the
 * network's output (OpenCV's forward() of the last layer).
 */
export async function runOpenCvCaffe(
  prototxt: Uint8Array,
  caffemodel: Uint8Array,
  dims: readonly number[],
  data: Float32Array,
): Promise<{ dims: number[]; data: Float32Array }> {
  const [only] = await runOpenCvCaffeLayers(prototxt, caffemodel, dims, data, [undefined]);
  return only as { dims: number[]; data: Float32Array };
}

/** The outputs of the named layers (undefined: the net's last layer), one forward each. */
export async function runOpenCvCaffeLayers(
  prototxt: Uint8Array,
  caffemodel: Uint8Array,
  dims: readonly number[],
  data: Float32Array,
  layers: readonly (string | undefined)[],
): Promise<{ dims: number[]; data: Float32Array }[]> {
  const { cv } = await openCv();
  const [n, c, h, w] = dims as [number, number, number, number];
  if (n !== 1 || c < 1 || c > 4) throw new Error('the OpenCV fixture takes batch 1 with 1-4 channels');
  const id = fileCounter++;
  const protoPath = `/net${id}.prototxt`;
  const modelPath = `/net${id}.caffemodel`;
  cv.FS.writeFile(protoPath, prototxt);
  cv.FS.writeFile(modelPath, caffemodel);
  // an interleaved HxWxC image; blobFromImage turns it into 1xCxHxW without scaling or reordering
  const interleaved = new Float32Array(c * h * w);
  for (let ch = 0; ch < c; ch++) for (let i = 0; i < h * w; i++) interleaved[i * c + ch] = data[ch * h * w + i] as number;
  const types = [cv.CV_32FC1, cv.CV_32FC2, cv.CV_32FC3, cv.CV_32FC4];
  const image = cv.matFromArray(h, w, types[c - 1] as number, interleaved);
  const blob = cv.blobFromImage(image, 1, new cv.Size(w, h), new cv.Scalar(0, 0, 0, 0), false, false);
  const net = cv.readNetFromCaffe(protoPath, modelPath);
  try {
    return layers.map((layer) => {
      net.setInput(blob);
      const out = layer === undefined ? net.forward() : net.forward(layer);
      const result = { dims: [...out.matSize], data: new Float32Array(out.data32F) };
      out.delete();
      return result;
    });
  } finally {
    net.delete();
    blob.delete();
    image.delete();
    cv.FS.unlink(protoPath);
    cv.FS.unlink(modelPath);
  }
}
