/** Type lists shared by the math group's op definitions. */
import type { DataType } from '@tsge/metadef';
import { FLOAT_TYPES, INT_TYPES, NUMERIC_TYPES } from '@tsge/metadef';

export const FLOATS: readonly DataType[] = FLOAT_TYPES;
export const NUMERIC: readonly DataType[] = NUMERIC_TYPES;
export const INTEGERS: readonly DataType[] = INT_TYPES;
export const SIGNED_NUMERIC: readonly DataType[] = [...FLOAT_TYPES, 'int8', 'int16', 'int32', 'int64'];
export const NUMERIC_AND_BOOL: readonly DataType[] = [...NUMERIC_TYPES, 'bool'];
export const ALL_TYPES: readonly DataType[] = [...NUMERIC_TYPES, 'bool', 'string'];
export const SMALL_FLOATS: readonly DataType[] = ['float8e4m3fn', 'float8e4m3fnuz', 'float8e5m2', 'float8e5m2fnuz', 'float4e2m1'];
export const CASTABLE: readonly DataType[] = [...NUMERIC_TYPES, 'bool', 'string', ...SMALL_FLOATS, 'int4', 'uint4'];
