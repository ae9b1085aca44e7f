/**
 * Paths from per-person event lists (PostHog's paths runner, reference §5.3): split into sessions at gaps of 30
 * minutes or more, collapse consecutive duplicates, cut at start/end points, count edges between consecutive
 * items, sort/filter/limit, and prune edges not reachable from a first-step node.
 */

export interface PathEvent {
  ts: number;
  item: string;
}

export interface PathsOptions {
  stepLimit: number;
  edgeLimit: number;
  minEdgeWeight?: number | null;
  maxEdgeWeight?: number | null;
  startPoint?: string | null;
  endPoint?: string | null;
  excludeEvents?: string[] | null;
  /**
   * A gap of this many milliseconds or more starts a new session. Default {@link SESSION_GAP_MS}; funnel paths use
   * the funnel's conversion window (PostHog's `get_session_threshold_clause`).
   */
  sessionGapMs?: number;
}

export interface PathLink {
  source: string;
  target: string;
  value: number;
  average_conversion_time: number;
}

export const SESSION_GAP_MS = 30 * 60 * 1000;

/** One person's events (any order) → their session paths, already cut per start/end/step limit. */
export function personPaths(events: PathEvent[], o: PathsOptions): PathEvent[][] {
  const excluded = new Set(o.excludeEvents ?? []);
  // Equal timestamps are ordered by item, as the in-engine computation orders them (the engine's arrays come in no
  // fixed order).
  const evs = events.filter((e) => !excluded.has(e.item)).sort((a, b) => a.ts - b.ts || cmp(a.item, b.item));
  const gap = o.sessionGapMs ?? SESSION_GAP_MS;
  const sessions: PathEvent[][] = [];
  let cur: PathEvent[] = [];
  for (const e of evs) {
    if (cur.length && e.ts - cur[cur.length - 1].ts >= gap) {
      sessions.push(cur);
      cur = [];
    }
    cur.push(e);
  }
  if (cur.length) sessions.push(cur);

  const out: PathEvent[][] = [];
  for (const s of sessions) {
    // Collapse runs of the same item: one entry per run, carrying the run's last timestamp. PostHog keeps an item
    // when it differs from the next one, the last compared with '' (`arrayPopFront(arrayPushBack(path_basic, ''))`),
    // so an empty item that ends the session is dropped.
    const path: PathEvent[] = [];
    for (const e of s) {
      if (path.length && path[path.length - 1].item === e.item) path[path.length - 1] = e;
      else path.push(e);
    }
    if (path.length && path[path.length - 1].item === '') path.pop();
    const cut = cutPath(path, o);
    if (cut && cut.length) out.push(cut);
  }
  return out;
}

function cutPath(path: PathEvent[], o: PathsOptions): PathEvent[] | null {
  const n = o.stepLimit;
  const start = o.startPoint ?? null;
  const end = o.endPoint ?? null;
  if (start !== null && end !== null) {
    const i = path.findIndex((e) => e.item === start);
    if (i < 0) return null;
    const j = path.findIndex((e, k) => k >= i && e.item === end);
    if (j < 0) return null;
    const seg = path.slice(i, j + 1);
    if (seg.length <= n) return seg;
    // PostHog's limited_timings: the "..." item carries the time of the first item it stands for, so the edges into
    // and out of it split the skipped time.
    const half = Math.floor(n / 2);
    return [...seg.slice(0, half), { ts: seg[half].ts, item: '...' }, ...seg.slice(seg.length - half)];
  }
  if (start !== null) {
    const i = path.findIndex((e) => e.item === start);
    if (i < 0) return null;
    return path.slice(i, i + n);
  }
  if (end !== null) {
    const j = path.findIndex((e) => e.item === end);
    if (j < 0) return null;
    return path.slice(Math.max(0, j + 1 - n), j + 1);
  }
  return path.slice(0, n);
}

/** One edge: traversals and the sum of their times (ms). */
export interface PathEdge {
  source: string;
  target: string;
  value: number;
  total: number;
}

/** Edges from all paths, sorted, weight-filtered, limited and pruned to those reachable from a `1_` node. */
export function pathLinks(paths: PathEvent[][], o: PathsOptions): PathLink[] {
  const edges = new Map<string, PathEdge>();
  for (const p of paths) {
    for (let i = 1; i < p.length; i++) {
      const source = `${i}_${p[i - 1].item}`;
      const target = `${i + 1}_${p[i].item}`;
      const key = `${source}\u0000${target}`;
      let e = edges.get(key);
      if (!e) edges.set(key, (e = { source, target, value: 0, total: 0 }));
      e.value++;
      e.total += p[i].ts - p[i - 1].ts;
    }
  }
  return edgeLinks([...edges.values()], o);
}

/** Counted edges (each source/target pair once) → the sorted, weight-filtered, limited, pruned links. */
export function edgeLinks(edges: PathEdge[], o: PathsOptions): PathLink[] {
  let list = edges;
  if (o.minEdgeWeight !== null && o.minEdgeWeight !== undefined) list = list.filter((e) => e.value >= o.minEdgeWeight!);
  if (o.maxEdgeWeight !== null && o.maxEdgeWeight !== undefined) list = list.filter((e) => e.value <= o.maxEdgeWeight!);
  list.sort((a, b) => b.value - a.value || cmp(a.source, b.source) || cmp(a.target, b.target));
  list = list.slice(0, o.edgeLimit);

  // Keep only edges reachable from a first-step node through the returned edges.
  const bySource = new Map<string, typeof list>();
  for (const e of list) {
    const l = bySource.get(e.source);
    if (l) l.push(e);
    else bySource.set(e.source, [e]);
  }
  const seen = new Set<string>();
  const stack = [...new Set(list.filter((e) => e.source.startsWith('1_')).map((e) => e.source))];
  while (stack.length) {
    const node = stack.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    for (const e of bySource.get(node) ?? []) stack.push(e.target);
  }
  return list
    .filter((e) => seen.has(e.source))
    .map((e) => ({ source: e.source, target: e.target, value: e.value, average_conversion_time: e.total / e.value }));
}

/**
 * The node keys an actors query asks for (PostHog's `pathStartKey`, `pathEndKey`, `pathDropoffKey`, e.g. `2_/pricing`).
 */
export interface PathActorKeys {
  start?: string | null;
  end?: string | null;
  dropoff?: string | null;
}

/**
 * How many steps of one actor's paths match the keys (PostHog's paths actors filter over each step of each session
 * path): `start` — the previous step is that node (`last_path_key`); `end` — the step is that node (`path_key`);
 * `dropoff` — the path ends at that node and the step is it; a dropoff key overrides the other two (PostHog's actors
 * query checks start and end only when there is no dropoff key). With `start` and `end`, the actors who crossed that
 * edge. Zero: the actor is not one of them.
 */
export function matchingSteps(paths: PathEvent[][], k: PathActorKeys): number {
  let n = 0;
  for (const p of paths) {
    const dropoff = `${p.length}_${p[p.length - 1].item}`;
    for (let i = 0; i < p.length; i++) {
      const key = `${i + 1}_${p[i].item}`;
      if (k.dropoff) {
        if (dropoff !== k.dropoff || key !== k.dropoff) continue;
      } else {
        if (k.start && (i === 0 || `${i}_${p[i - 1].item}` !== k.start)) continue;
        if (k.end && key !== k.end) continue;
      }
      n++;
    }
  }
  return n;
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
