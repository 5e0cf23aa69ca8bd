// Building blocks of the request-body schemas.
export const str = { type: 'string' } as const;
export const int = { type: 'integer' } as const;
export const stringMap = { type: 'object', additionalProperties: str } as const;
