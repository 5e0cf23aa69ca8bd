// JSON schemas (types and required fields only; 422 on failure) of the collection and
// backup bodies. Value rules are in the services (400).
import { str } from './json-types.js';
import { readCapacity } from './index-schemas.js';

export const createCollectionBody = {
  type: 'object',
  required: ['name', 'source'],
  properties: { name: str, source: str },
} as const;

export const createBackupBody = {
  type: 'object',
  properties: { name: str, description: str },
} as const;

export const restoreBackupBody = {
  type: 'object',
  required: ['name'],
  properties: {
    name: str,
    tags: { type: 'object', additionalProperties: str },
    deletion_protection: str,
    read_capacity: readCapacity,
  },
} as const;
