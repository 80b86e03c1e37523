/** Memory layouts (GE "formats"). Blocked formats carry the block size in the name. */
export const FORMATS = [
  'ND',
  'NCHW',
  'NHWC',
  'NC1HWC0',
  'NCHW4c',
  'NCHW8c',
  'NCHW16c',
  'HWCN',
  'CHWN',
  'NCDHW',
  'NDHWC',
  'OIHW',
  'OIHW8i8o',
  'RESERVED',
] as const;
export type Format = (typeof FORMATS)[number];

export function isFormat(value: unknown): value is Format {
  return typeof value === 'string' && (FORMATS as readonly string[]).includes(value);
}
