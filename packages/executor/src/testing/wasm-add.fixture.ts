// A hand-assembled WebAssembly module, as the compiler's code generator would emit: it imports the
// device memory (shared, up to 4 GiB) and exports add(a, b, out), adding 4 float32 values at those
// byte addresses.

function section(id: number, content: number[]): number[] {
  return [id, content.length, ...content];
}
const name = (text: string): number[] => [text.length, ...Array.from(text, (c) => c.charCodeAt(0))];

export function wasmAddModule(): Uint8Array {
  const body = [
    0x01,
    0x01,
    0x7f, // one i32 local (i)
    0x03,
    0x40, // loop
    0x20,
    0x02,
    0x20,
    0x03,
    0x6a, // out + i
    0x20,
    0x00,
    0x20,
    0x03,
    0x6a,
    0x2a,
    0x02,
    0x00, // f32.load a + i
    0x20,
    0x01,
    0x20,
    0x03,
    0x6a,
    0x2a,
    0x02,
    0x00, // f32.load b + i
    0x92, // f32.add
    0x38,
    0x02,
    0x00, // f32.store
    0x20,
    0x03,
    0x41,
    0x04,
    0x6a,
    0x22,
    0x03, // i += 4
    0x41,
    0x10,
    0x49,
    0x0d,
    0x00, // br_if i < 16
    0x0b,
    0x0b,
  ];
  return new Uint8Array([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, [0x01, 0x60, 0x03, 0x7f, 0x7f, 0x7f, 0x00]),
    ...section(2, [0x01, ...name('env'), ...name('memory'), 0x02, 0x03, 0x01, 0x80, 0x80, 0x04]),
    ...section(3, [0x01, 0x00]),
    ...section(7, [0x01, ...name('add'), 0x00, 0x00]),
    ...section(10, [0x01, body.length, ...body]),
  ]);
}
