/**
 * Per-actor funnel evaluation, modelled on PostHog's funnel UDF (`aggregate_funnel`): events of one actor in time
 * order, a state per step holding the entry (step-0) time and the step timings of the partial sequence that
 * reached it. The latest step-0 event starts a new sequence; a step is reached from the previous step's state when
 * it happens within the conversion window measured from the entry; the first sequence to reach the furthest step
 * gives the actor's conversion timings.
 */

export interface FunnelEvent {
  /** Epoch ms. */
  ts: number;
  /** Bitmask of the steps this event matches. */
  steps: number;
  /** Bitmask of the exclusions this event matches. */
  excl: number;
  /** Breakdown value (JSON of the boxed array) or '' without breakdown. */
  bd: string;
}

export interface FunnelConfig {
  numSteps: number;
  order: 'ordered' | 'strict' | 'unordered';
  windowMs: number;
  /** `optional[i]`: step i may be skipped (ordered/strict, steps viz). */
  optional: boolean[];
  exclusions: { from: number; to: number }[];
  /**
   * Trends viz: fill {@link ActorResult.reachByEntry} with each entry's own sequence (see {@link entryReach}) instead
   * of the shared steps state machine. Default false.
   */
  perEntry?: boolean;
}

export interface ActorResult {
  /** Furthest step index reached (0-based). */
  maxStep: number;
  /** Timestamp (ms) per step on the chosen sequence; null for skipped optional steps. */
  timings: (number | null)[];
  /** Steps completed on the chosen sequence. */
  reached: boolean[];
  /** Furthest step per entry time (for trends: one entry per step-0 event). */
  reachByEntry: Map<number, number>;
  /**
   * Unordered funnels: the step timestamps of every sequence reaching {@link maxStep} (the first is {@link timings}).
   * PostHog's FunnelUnordered keeps each of the actor's rows with the most steps and averages their conversion times
   * per actor (`HAVING steps = max_steps`, then avg/median of the actor's averages/medians:
   * test_basic_unordered_funnel_conversion_times, "(2+3)/2 hours for Person 3").
   */
  maxStepTimings?: number[][];
}

interface State {
  entry: number;
  timings: (number | null)[];
  last: number;
  /** The sequence met an exclusion; it still advances, carrying the flag. */
  excluded?: boolean;
}

const has = (mask: number, i: number): boolean => (mask & (1 << i)) !== 0;

/**
 * Evaluates one actor. Returns null when the actor never did step 0, or when the sequence that reached the furthest
 * step met an exclusion (PostHog's funnel UDF marks the excluded sequence — it keeps advancing — and drops the actor
 * when its max-step sequence is excluded; a clean sequence reaching the same step replaces an excluded one:
 * test_funnel_exclusion_multiple_possible_no_end_event1). `stepFilter(i, ev)` can refuse an event for a step (step
 * attribution).
 */
export function evaluateActor(events: FunnelEvent[], cfg: FunnelConfig, stepFilter?: (step: number, ev: FunnelEvent) => boolean): ActorResult | null {
  if (cfg.order === 'unordered') return evaluateUnordered(events, cfg, stepFilter);
  const n = cfg.numSteps;
  const entered: (State | null)[] = new Array(n).fill(null);
  let best: { step: number; state: State } | null = null;
  const reachByEntry = new Map<number, number>();
  const note = (entry: number, step: number) => {
    const cur = reachByEntry.get(entry);
    if (cur === undefined || cur < step) reachByEntry.set(entry, step);
  };

  for (const ev of events) {
    // Exclusions, as the funnel UDF checks them: for each step i of the range (from < i <= to), the partial sequence
    // standing at step i - 1 that has not reached step i, inside its window, is excluded. Every step of the range is
    // looked at, not only `from`: a sequence that went past `from` is still caught after a later entry took the
    // `from` slot.
    if (ev.excl) {
      for (let x = 0; x < cfg.exclusions.length; x++) {
        if (!has(ev.excl, x)) continue;
        const { from, to } = cfg.exclusions[x];
        for (let i = from + 1; i <= to; i++) {
          const prev = entered[i - 1];
          if (!prev || prev.excluded) continue;
          // Strictly after the from step's event (an exclusion at the same instant does not exclude); a skipped
          // optional from step: after the step before it.
          let fromTs: number | null | undefined = null;
          for (let j = from; j >= 0 && (fromTs === null || fromTs === undefined); j--) fromTs = prev.timings[j];
          if (fromTs === null || fromTs === undefined || ev.ts <= fromTs || ev.ts - prev.entry > cfg.windowMs) continue;
          const cur = entered[i];
          if (cur !== null && cur.entry === prev.entry) continue;
          prev.excluded = true;
          // The UDF also marks its max-step record when it stands at step i - 1 inside its own window, whatever its
          // entry. That record is a copy, so the sequence itself stays clean unless it is the one marked above.
          const b = best as { step: number; state: State } | null;
          if (b && b.step === i - 1 && !b.state.excluded && ev.ts - b.state.entry <= cfg.windowMs) best = { step: b.step, state: { ...b.state, excluded: true } };
        }
      }
    }
    for (let k = n - 1; k >= 0; k--) {
      if (!has(ev.steps, k)) continue;
      if (stepFilter && !stepFilter(k, ev)) continue;
      if (k === 0) {
        const timings: (number | null)[] = new Array(n).fill(null);
        timings[0] = ev.ts;
        entered[0] = { entry: ev.ts, timings, last: ev.ts };
        note(ev.ts, 0);
        if (!best || (best.step === 0 && best.state.excluded)) best = { step: 0, state: entered[0] };
        continue;
      }
      // The previous state: step k-1, or (skipping optional steps) an earlier one; the latest entry wins.
      let prev: State | null = null;
      for (let j = k - 1; j >= 0; j--) {
        const s = entered[j];
        if (s && (!prev || s.entry > prev.entry)) prev = s;
        if (!cfg.optional[j]) break;
      }
      if (!prev) continue;
      const inWindow = ev.ts - prev.entry <= cfg.windowMs;
      const cur = entered[k];
      const already = cur !== null && cur.entry === prev.entry;
      // No "strictly later" for a step repeating the previous one: another event of the same instant converts (the
      // UDF processes events of one timestamp that match the same steps one after the other); the same event cannot
      // fill both, as steps are tried from the last down.
      if (inWindow && !already && ev.ts >= prev.last) {
        const timings = [...prev.timings];
        timings[k] = ev.ts;
        entered[k] = { entry: prev.entry, timings, last: ev.ts, excluded: prev.excluded };
        note(prev.entry, k);
        if (!best || best.step < k || (best.step === k && best.state.excluded)) best = { step: k, state: entered[k]! };
      }
    }
    if (cfg.order === 'strict') for (let k = 0; k < n; k++) if (!has(ev.steps, k)) entered[k] = null;
  }
  if (!best) return null;
  // (funnel trends count entries on their own, excluded ones left out there: see entryReach)
  if (best.state.excluded && !cfg.perEntry) return null;
  const reached = best.state.timings.map((t, i) => i <= best!.step && t !== null);
  return { maxStep: best.step, timings: best.state.timings.slice(0, best.step + 1), reached, reachByEntry: cfg.perEntry ? entryReach(events, cfg, stepFilter) : reachByEntry };
}

/**
 * Funnel trends (ordered/strict): every step-0 event is an entry of its own that advances independently of the
 * actor's other entries — a later entry does not take over an earlier entry's progress (PostHog's funnel trends UDF
 * keeps a list of entered timestamps and advances each one on every event; the legacy SQL computed a chain per
 * step-0 row). Per entry the furthest step reached inside the window from the entry: ordered takes the first event
 * of each next step (a later event, possibly of the same instant); strict stops at the first event that
 * neither completes the next step nor repeats the current one (the UDF clears the steps an event does not match).
 */
export function entryReach(events: FunnelEvent[], cfg: FunnelConfig, stepFilter?: (step: number, ev: FunnelEvent) => boolean): Map<number, number> {
  const n = cfg.numSteps;
  const out = new Map<number, number>();
  const ok = (k: number, ev: FunnelEvent): boolean => has(ev.steps, k) && (!stepFilter || stepFilter(k, ev));
  if (cfg.order === 'ordered' && !cfg.exclusions.length) {
    // Greedy chains by binary search in each step's event positions: O(steps · log events) per entry, where the scan
    // below costs the events inside the window (heavy actors have thousands of entries in one window).
    const positions: number[][] = Array.from({ length: n }, () => []);
    events.forEach((ev, i) => {
      for (let k = 0; k < n; k++) if (ok(k, ev)) positions[k].push(i);
    });
    const firstAfter = (list: number[], pos: number): number => {
      let lo = 0;
      let hi = list.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (list[mid] > pos) hi = mid;
        else lo = mid + 1;
      }
      return lo;
    };
    for (const i of positions[0]) {
      const entry = events[i];
      let reached = 0;
      let pos = i;
      for (let k = 1; k < n; k++) {
        const list = positions[k];
        const p = firstAfter(list, pos);
        if (p >= list.length) break;
        const ev = events[list[p]];
        if (ev.ts - entry.ts > cfg.windowMs) break;
        reached = k;
        pos = list[p];
      }
      const prev = out.get(entry.ts);
      if (prev === undefined || prev < reached) out.set(entry.ts, reached);
    }
    return out;
  }
  for (let i = 0; i < events.length; i++) {
    const entry = events[i];
    if (!ok(0, entry)) continue;
    let reached = 0;
    const at: number[] = [entry.ts];
    let excluded = false;
    for (let j = i + 1; j < events.length && !excluded && reached < n - 1; j++) {
      const ev = events[j];
      if (ev.ts - entry.ts > cfg.windowMs) break;
      // An exclusion after the entry reached `from` and before it reached `to` leaves the entry out.
      if (ev.excl)
        for (let x = 0; x < cfg.exclusions.length; x++) {
          const { from, to } = cfg.exclusions[x];
          if (has(ev.excl, x) && reached >= from && reached < to && ev.ts > at[from]) excluded = true;
        }
      const k = reached + 1;
      if (ok(k, ev)) {
        reached = k;
        at[k] = ev.ts;
      } else if (cfg.order === 'strict' && !has(ev.steps, reached)) break;
    }
    if (excluded) continue;
    const prev = out.get(entry.ts);
    if (prev === undefined || prev < reached) out.set(entry.ts, reached);
  }
  return out;
}

/**
 * Unordered: a sequence starts at any step event and completes distinct steps inside the window. `stepFilter(0, ev)`
 * refuses an event as a sequence start (step attribution keeps the starts of one step: one rotation of PostHog's
 * FunnelUnordered, see the funnels runner's attributeUnorderedStep).
 */
function evaluateUnordered(events: FunnelEvent[], cfg: FunnelConfig, stepFilter?: (step: number, ev: FunnelEvent) => boolean): ActorResult | null {
  const n = cfg.numSteps;
  const all = (1 << n) - 1;
  let best: { count: number; times: number[] } | null = null;
  const sequences: number[][] = [];
  let excludedReach = 0;
  const reachByEntry = new Map<number, number>();
  for (let i = 0; i < events.length; i++) {
    const start = events[i];
    if (!(start.steps & all) || (stepFilter && !stepFilter(0, start))) continue;
    let done = 0;
    const times: number[] = [];
    let lastTs = start.ts;
    for (let j = i; j < events.length && events[j].ts - start.ts <= cfg.windowMs; j++) {
      const ev = events[j];
      const open = ev.steps & all & ~done;
      if (!open) continue;
      // One step per event: the lowest open step it matches.
      const k = Math.log2(open & -open);
      done |= 1 << k;
      times.push(ev.ts);
      lastTs = ev.ts;
      if (done === all) break;
    }
    const count = times.length;
    // Exclusions span the whole funnel: between the first event and the completion (or the window end). An excluded
    // sequence is marked, not the actor: the actor is dropped when its furthest sequence is excluded (a clean one
    // reaching as far wins), as for ordered funnels in evaluateActor.
    if (cfg.exclusions.length) {
      const end = done === all ? lastTs : start.ts + cfg.windowMs;
      if (events.some((ev) => ev.excl && ev.ts > start.ts && ev.ts < end + (done === all ? 0 : 1))) {
        excludedReach = Math.max(excludedReach, count);
        continue;
      }
    }
    const prev = reachByEntry.get(start.ts);
    if (prev === undefined || prev < count - 1) reachByEntry.set(start.ts, count - 1);
    if (!best || count > best.count) {
      best = { count, times };
      sequences.length = 0;
    }
    if (count === best.count) sequences.push(times);
  }
  if (!best || excludedReach > best.count) return null;
  const reached = new Array(n).fill(false).map((_, i) => i < best!.count);
  return { maxStep: best.count - 1, timings: best.times, reached, reachByEntry, maxStepTimings: sequences };
}
