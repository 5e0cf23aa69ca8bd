/**
 * A file that cannot be imported at all (not Parquet, truncated, wrong columns). Apart
 * from parquet-file.ts so that the server can recognise one without loading the Parquet
 * reader, which it loads only when an import runs.
 */
export class ParquetFileError extends Error {}
