// Stable numeric labels for record ids within one namespace. HNSW graphs and the vector
// arena address records by label, so a label NEVER moves while its record lives: an
// update keeps it, and only a delete frees it. Freed labels are reused (lowest-cost
// way to keep the arena dense); a graph that still has a node under a reused label
// marked deleted simply updates that node when the new record is inserted.
export class LabelMap {
  private readonly labelOf = new Map<string, number>();
  /** ids[label], undefined for a free label. */
  private readonly ids: (string | undefined)[] = [];
  private readonly free: number[] = [];

  /** Live records. */
  get size(): number {
    return this.labelOf.size;
  }

  /** One past the highest label ever handed out: the length a by-label array needs. */
  get extent(): number {
    return this.ids.length;
  }

  label(id: string): number | undefined {
    return this.labelOf.get(id);
  }

  /** The id of a live label; undefined for a free one. */
  id(label: number): string | undefined {
    return this.ids[label];
  }

  /** A label for a new id (the caller checked it has none). */
  assign(id: string): number {
    const label = this.free.pop() ?? this.ids.length;
    if (label === this.ids.length) this.ids.push(id);
    else this.ids[label] = id;
    this.labelOf.set(id, label);
    return label;
  }

  /** Frees the label of `id`; returns it, or undefined when the id has none. */
  release(id: string): number | undefined {
    const label = this.labelOf.get(id);
    if (label === undefined) return undefined;
    this.labelOf.delete(id);
    this.ids[label] = undefined;
    this.free.push(label);
    return label;
  }

  /**
   * Restoring from a snapshot: makes labels [0, extent) exist, unassigned and not free,
   * so new ids get labels above them; records then claim theirs with assignAt, and
   * freeUnclaimed() frees the rest.
   */
  reserve(extent: number): void {
    while (this.ids.length < extent) this.ids.push(undefined);
  }

  assignAt(id: string, label: number): void {
    this.ids[label] = id;
    this.labelOf.set(id, label);
  }

  /** Frees every unassigned label below `extent`; returns them. */
  freeUnclaimed(extent: number): number[] {
    const freed: number[] = [];
    for (let label = 0; label < extent; label++) {
      if (this.ids[label] === undefined) {
        this.free.push(label);
        freed.push(label);
      }
    }
    return freed;
  }
}
