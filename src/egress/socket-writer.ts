/**
 * @module egress/socket-writer
 * Back-pressure for relaying bytes between two Bun TCP sockets. `Socket.write` is unbuffered: it returns how many
 * bytes the kernel took and the caller owns the rest. Without a queue, bytes are lost; without pausing the
 * source, a fast upstream (or a decompression-bomb site) fills memory. This writer queues the remainder, pauses
 * the source while anything is queued and resumes it on `drain`.
 */
import type { Socket } from "bun";

/** Writes to one socket, pausing the source of the bytes while the destination is full. */
export class SocketWriter {
  private queue: Uint8Array[] = [];
  private ending = false;
  private closed = false;

  /**
   * @param socket destination
   * @param setSourcePaused called with true when the destination is full and false when it has drained
   */
  constructor(
    private readonly socket: Socket<unknown>,
    private readonly setSourcePaused: (paused: boolean) => void,
  ) {}

  /** Bytes waiting for the destination to drain. */
  get pendingBytes(): number {
    let n = 0;
    for (const c of this.queue) n += c.byteLength;
    return n;
  }

  /** Writes or queues `chunk`. The chunk is copied when queued: Bun may reuse a received buffer. */
  write(chunk: Uint8Array): void {
    if (this.closed || this.ending || chunk.byteLength === 0) return;
    if (this.queue.length > 0) {
      this.queue.push(new Uint8Array(chunk));
      return;
    }
    const n = this.socket.write(chunk);
    if (n < 0) {
      this.closed = true;
      return;
    }
    if (n < chunk.byteLength) {
      this.queue.push(new Uint8Array(chunk.subarray(n)));
      this.setSourcePaused(true);
    }
  }

  /** Call from the destination socket's `drain` handler. */
  drain(): void {
    while (this.queue.length > 0 && !this.closed) {
      const head = this.queue[0]!;
      const n = this.socket.write(head);
      if (n < 0) {
        this.closed = true;
        this.queue = [];
        return;
      }
      if (n < head.byteLength) {
        this.queue[0] = head.subarray(n);
        return;
      }
      this.queue.shift();
    }
    this.setSourcePaused(false);
    if (this.ending) this.finish();
  }

  /** Ends the destination once everything queued has been written. */
  end(): void {
    if (this.closed) return;
    this.ending = true;
    if (this.queue.length === 0) this.finish();
  }

  /** Marks the destination closed; queued bytes are dropped. */
  destroyed(): void {
    this.closed = true;
    this.queue = [];
  }

  private finish(): void {
    this.closed = true;
    this.socket.end();
  }
}
