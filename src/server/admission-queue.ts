// A bounded admission queue: at most `maxActive` holders at once, at most `maxWaiting`
// more waiting in FIFO order, and everything beyond refused at once. It knows nothing of
// HTTP; src/server/overload.ts puts it in front of the data plane.
//
// Invariant: active <= maxActive and waiting.length <= maxWaiting at every moment, and a
// slot is released exactly once (the Ticket's release is idempotent), so a request that
// ends twice (finished, then its socket closed) cannot free someone else's slot.

export interface Ticket {
  /**
   * null: the holder may run now. Else it waits: resolves when the holder may run, rejects
   * with QueueTimeout if it waited too long.
   */
  readonly admitted: Promise<void> | null;
  /** Frees the slot (or leaves the queue); safe to call more than once. */
  release(): void;
}

export class QueueFull extends Error {}
export class QueueTimeout extends Error {}

interface Waiter {
  grant(): void;
  timer: NodeJS.Timeout;
}

export class AdmissionQueue {
  private active = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    readonly maxActive: number,
    readonly maxWaiting: number,
    /** A waiter not admitted within this many ms is refused rather than stalling forever. */
    private readonly maxWaitMs: number,
  ) {}

  get activeCount(): number {
    return this.active;
  }

  get waitingCount(): number {
    return this.waiting.length;
  }

  /** Takes a slot now, joins the queue, or throws QueueFull when both are full. */
  enter(): Ticket {
    let state: 'active' | 'waiting' | 'done' = 'active';
    const release = (): void => {
      if (state === 'active') {
        state = 'done';
        this.active--;
        this.admitNext();
      } else if (state === 'waiting') {
        state = 'done';
        const i = this.waiting.indexOf(waiter);
        if (i >= 0) this.waiting.splice(i, 1);
        clearTimeout(waiter.timer);
      }
    };
    if (this.active < this.maxActive) {
      this.active++;
      return { admitted: null, release };
    }
    if (this.waiting.length >= this.maxWaiting) throw new QueueFull();
    state = 'waiting';
    let grant!: () => void;
    let refuse!: (err: Error) => void;
    const admitted = new Promise<void>((resolve, reject) => {
      grant = resolve;
      refuse = reject;
    });
    const waiter: Waiter = {
      grant: () => {
        clearTimeout(waiter.timer);
        state = 'active';
        grant();
      },
      timer: setTimeout(() => {
        release();
        refuse(new QueueTimeout());
      }, this.maxWaitMs),
    };
    this.waiting.push(waiter);
    return { admitted, release };
  }

  private admitNext(): void {
    const next = this.waiting.shift();
    if (!next) return;
    this.active++;
    next.grant();
  }
}
