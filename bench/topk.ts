// A bounded top-k for small k (higher score first): an insertion-sorted array.

export class TopK {
  readonly ids: Int32Array;
  readonly scores: Float64Array;
  size = 0;

  constructor(readonly k: number) {
    this.ids = new Int32Array(k).fill(-1);
    this.scores = new Float64Array(k).fill(-Infinity);
  }

  /** Lowest score held once full (anything at or below it cannot enter). */
  get floor(): number {
    return this.size < this.k ? -Infinity : this.scores[this.k - 1];
  }

  push(id: number, score: number): void {
    if (this.size === this.k && score <= this.scores[this.k - 1]) return;
    let i = this.size < this.k ? this.size++ : this.k - 1;
    while (i > 0 && this.scores[i - 1] < score) {
      this.scores[i] = this.scores[i - 1];
      this.ids[i] = this.ids[i - 1];
      i--;
    }
    this.scores[i] = score;
    this.ids[i] = id;
  }
}
