// The cursor of a bulk import as the record store keeps it (schema.ts, version 2): where
// the import stands after its last committed batch. Written only in the transaction of a
// batch (RecordWriter.importBatch), so it never counts a batch the store does not hold
// and never misses one that it does — across a kill -9 at any point.

export interface ImportProgress {
  /** Source rows read so far, imported or skipped (the numerator of percentComplete). */
  rowsDone: number;
  recordsImported: number;
  recordsFailed: number;
  /** Index into the import's sorted file list, and the first row of that file not yet committed. */
  fileIndex: number;
  rowInFile: number;
}

/** The row as stored; `import_id` is the catalog's id of the import. */
export interface ImportProgressRow {
  import_id: number;
  file_index: number;
  row_in_file: number;
  rows_done: number;
  records_imported: number;
  records_failed: number;
}

export const toImportProgressRow = (importId: number, p: ImportProgress): ImportProgressRow => ({
  import_id: importId,
  file_index: p.fileIndex,
  row_in_file: p.rowInFile,
  rows_done: p.rowsDone,
  records_imported: p.recordsImported,
  records_failed: p.recordsFailed,
});

export const fromImportProgressRow = (r: ImportProgressRow): ImportProgress => ({
  rowsDone: r.rows_done,
  recordsImported: r.records_imported,
  recordsFailed: r.records_failed,
  fileIndex: r.file_index,
  rowInFile: r.row_in_file,
});
