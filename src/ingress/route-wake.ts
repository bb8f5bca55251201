// Asleep routes: a preview whose app was stopped after a quiet while keeps its route, marked asleep.
// The first request that finds it without a target starts a wake hold (requests wait, unread, like in
// a migration window) and tells the wake listeners once per hold; they start the app and switch the
// route, and the held requests go to it. A hold that runs out answers 503 with Retry-After, as any.
import { endHold, newHold } from './route-entry.js';
import type { RouteEntry, RouteHold } from './route-types.js';

/** How long requests for an asleep route wait for it by default: a cold start with health check. */
export const DEFAULT_WAKE_HOLD_MS = 120_000;

/** The longest delay a Node timer keeps (a longer one fires at once). */
const MAX_TIMER_MS = 2_147_483_647;

/** Told the id of a project whose asleep route a request is waiting on. */
export type WakeListener = (projectId: string) => void;

/** The wake listeners and hold bound of one route table. */
export class RouteWake {
  readonly holdMs: number;
  readonly #listeners: WakeListener[] = [];
  readonly #onError: ((error: unknown, projectId: string) => void) | undefined;
  /** Report a route change to the table's follower (the ingress process's copy). */
  readonly #changed: (projectId: string) => void;
  #closed = false;

  constructor(changed: (projectId: string) => void, holdMs: number = DEFAULT_WAKE_HOLD_MS, onError?: (error: unknown, projectId: string) => void) {
    this.#changed = changed;
    this.holdMs = Number.isFinite(holdMs) ? Math.min(MAX_TIMER_MS, Math.max(0, Math.floor(holdMs))) : DEFAULT_WAKE_HOLD_MS;
    this.#onError = onError;
  }

  /** Add a listener; returns its remover. */
  on(listener: WakeListener): () => void {
    this.#listeners.push(listener);
    return () => {
      const at = this.#listeners.indexOf(listener);
      if (at !== -1) this.#listeners.splice(at, 1);
    };
  }

  /**
   * Mark a route asleep or awake. Clearing it without a target ends a wake hold: its requests get
   * the plain 503 of a project without an active release.
   */
  setAsleep(entry: RouteEntry, asleep: boolean): void {
    if (entry.asleep === asleep) return;
    entry.asleep = asleep;
    if (!asleep && entry.hold?.wake === true) endHold(entry);
    this.#changed(entry.projectId);
  }

  /** Start no wake hold any more (shutdown): asleep routes answer 503 with Retry-After from now on. */
  close(): void {
    this.#closed = true;
  }

  /**
   * The hold a request for `entry` waits on. For an asleep route without a target, its wake hold:
   * the running one, or a new one (listeners are told on the next microtask, once the caller has
   * parked its request). A new wake hold takes over the requests of a hold still running — the one
   * the app was stopped under — and lasts at least as long. Otherwise the entry's hold as it is.
   */
  holdFor(entry: RouteEntry): RouteHold | null {
    const current = entry.hold;
    if (entry.target !== null || !entry.asleep || this.#closed) return current;
    const running = current !== null && !current.expired;
    if (running && current.wake) return current;
    const hold = newHold(Math.max(Date.now() + this.holdMs, running ? current.until : 0), true);
    if (running) {
      clearTimeout(current.timer);
      for (const wake of current.waiters) hold.waiters.add(wake);
    }
    entry.hold = hold;
    const projectId = entry.projectId;
    this.#changed(projectId);
    queueMicrotask(() => this.#tell(projectId));
    return hold;
  }

  #tell(projectId: string): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(projectId);
      } catch (error) {
        this.#onError?.(error, projectId);
      }
    }
  }
}
