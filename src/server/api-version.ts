// API versions (DESIGN.md decision 1). The control plane requires a version header; the
// data plane treats a missing one as the current version.
import { invalid, show } from '../errors.js';

export const CURRENT_VERSION = '2026-04';
export const SUPPORTED_VERSIONS = [
  '2024-04',
  '2024-07',
  '2024-10',
  '2025-01',
  '2025-04',
  '2025-10',
  '2026-04',
  '2026-07',
] as const;
export type ApiVersion = (typeof SUPPORTED_VERSIONS)[number];

/** The header named by the interface, and the one the official clients send. */
export const VERSION_HEADERS = ['x-service-api-version', 'x-pinecone-api-version'] as const;

export function resolveVersion(
  headers: Record<string, string | string[] | undefined>,
  plane: 'control' | 'data',
): ApiVersion {
  let raw: string | undefined;
  let sentIn = '';
  for (const name of VERSION_HEADERS) {
    const value = headers[name];
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value[0] : value;
    // Both headers naming different versions: which one the client meant is a guess.
    if (raw !== undefined && raw.trim() !== text.trim()) {
      throw invalid(`${headerName(sentIn)} says ${show(raw.trim())} and ${headerName(name)} says ${show(text.trim())}; send one version`);
    }
    if (raw === undefined) {
      raw = text;
      sentIn = name;
    }
  }
  if (raw === undefined) {
    if (plane === 'data') return CURRENT_VERSION;
    throw invalid(
      `The X-Service-Api-Version header (alias X-Pinecone-Api-Version) is required; ` +
        `the current version is ${CURRENT_VERSION}`,
    );
  }
  const value = raw.trim();
  if (!(SUPPORTED_VERSIONS as readonly string[]).includes(value)) {
    throw invalid(
      `Unsupported API version ${show(value)} in ${headerName(sentIn)}; ` +
        `supported versions are ${SUPPORTED_VERSIONS.join(', ')} (current ${CURRENT_VERSION})`,
    );
  }
  return value as ApiVersion;
}

/** A lower-case header name as clients write it: x-pinecone-api-version → X-Pinecone-Api-Version. */
const headerName = (name: string): string => name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());

/** Versions from 2025-04 on name the default namespace "__default__" (decision 5). */
export const namesDefaultNamespace = (version: ApiVersion): boolean => version >= '2025-04';
