/**
 * @module crawl/ordered-pool
 * Tasks run a few at a time, their results taken in the order the tasks began (crawl/sitemap-read.ts reads an
 * index's children this way, so its URLs come out as a one-at-a-time read gives them).
 *
 * Only unfinished tasks take a place: a first task that hangs does not stop the ones after it from finishing and
 * new ones from beginning (head-of-line blocking held a map's sitemaps behind one child that never answered).
 * Results finished but not yet taken are held; `maxHeldWeight` bounds them (a held sitemap is up to 50 MiB of
 * text), and past it no task begins until results are taken.
 */

interface Slot<T> {
  settled?: { value: T };
}

/** Options of {@link OrderedPool}. */
export interface OrderedPoolOptions<T> {
  /** Unfinished tasks at once. */
  concurrency: number;
  /** The weight of a finished result while it is held (its text's length). @default 0 */
  weigh?: (value: T) => number;
  /** Held weight past which no task begins. @default Infinity */
  maxHeldWeight?: number;
}

/** A pool of tasks whose results are taken in order. Tasks must not reject (a failure is a result too). */
export class OrderedPool<T> {
  private readonly slots: Slot<T>[] = [];
  private running = 0;
  private held = 0;
  private wake: (() => void) | undefined;

  constructor(private readonly options: OrderedPoolOptions<T>) {
    if (!(options.concurrency >= 1)) throw new RangeError("OrderedPool: concurrency must be >= 1");
  }

  /** Tasks begun and not yet taken. */
  get size(): number {
    return this.slots.length;
  }

  /** Whether a task may begin now: a place is free and the held results are within their bound. */
  hasRoom(): boolean {
    return this.running < this.options.concurrency && this.held <= (this.options.maxHeldWeight ?? Infinity);
  }

  /** Begins a task. */
  add(task: () => Promise<T>): void {
    this.running++;
    const slot: Slot<T> = {};
    this.slots.push(slot);
    void task().then((value) => {
      this.running--;
      slot.settled = { value };
      this.held += this.options.weigh?.(value) ?? 0;
      this.wake?.();
    });
  }

  /** Whether the first result can be taken now. */
  headReady(): boolean {
    return this.slots[0]?.settled !== undefined;
  }

  /** Waits until some task finishes (the first, or one whose place can be given to a new task). */
  progress(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.wake = () => {
        this.wake = undefined;
        resolve();
      };
    });
  }

  /** Takes the first result; call only when {@link headReady}. */
  take(): T {
    const slot = this.slots.shift();
    if (!slot?.settled) throw new Error("OrderedPool.take: the first task has not finished");
    this.held -= this.options.weigh?.(slot.settled.value) ?? 0;
    return slot.settled.value;
  }
}
