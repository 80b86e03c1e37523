/**
 * Number views of tensors for math kernels: numeric storage is used as is; float16, bfloat16 and
 * the small float kinds are decoded into a Float64Array; int64/uint64 become Float64Array (exact
 * up to 2^53, the kernels that need full 64-bit precision have BigInt paths of their own).
 */

export type NumberArray = Float32Array | Float64Array | Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array;
