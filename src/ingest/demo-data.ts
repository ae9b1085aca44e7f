/**
 * Deterministic demo/benchmark dataset: persons and a time-ordered stream of PostHog-shaped events.
 *
 * The model (bench-reference.md): `persons` people over `days` days from `start` (UTC). A person starts skewed
 * early in the range (start = days·u²), lives an exponential number of days (mean 30) and has a lognormal
 * activity weight; the `events` total is apportioned over persons by weight × lifetime (every person gets at
 * least one event when there are enough events), so the stream has exactly `events` rows.
 *
 * A person's events come in bursts (mean ~8 events, gaps of seconds to minutes); a new `$session_id` starts after
 * 30 minutes of inactivity or on another device. Every burst opens with a `$pageview`; the other event names are
 * drawn so that the overall mix is the reference mix ($pageview 45%, $autocapture 18%, ...).
 *
 * Identity: a person browses anonymously (distinct id `anon-…`) until their first `$identify`, which carries
 * `$anon_distinct_id` (a merge of the anonymous person into the identified one) and `$set` of the person
 * properties. Later sessions are sometimes on another device, anonymous until the `$identify` of that session
 * merges it (so the distinct persons are exactly the persons with events, as in the reference dataset).
 *
 * Memory is bounded by the number of persons (a few numbers each), not events: events are produced by a
 * min-heap over each person's next event time, so 10M events stream in constant memory.
 *
 * The stream is a pure function of the options: same options → byte-identical rows (no Math.random, no clock).
 */

export interface DemoDataOptions {
  /** Exact number of events produced. */
  events: number;
  /** Number of persons. Default 50,000. */
  persons?: number;
  /** PRNG seed. Default 42. Different seeds give independent datasets of the same shape. */
  seed?: number;
  /** First instant of the range (UTC). Default 2024-01-01T00:00:00Z. */
  start?: Date;
  /** Length of the range in days. Default 90. Every event falls in [start, start + days). */
  days?: number;
}

/** One event in PostHog capture shape (what `/batch` and the Ingestor's `import` accept). */
export interface DemoEvent {
  uuid: string;
  event: string;
  distinct_id: string;
  /** ISO 8601, UTC, millisecond precision. */
  timestamp: string;
  properties: Record<string, unknown>;
}

/**
 * An event together with what the identity layer will resolve it to once all merges are applied: the
 * generator's own person id (the identified person's `id` from the persons stream, or a stable id for a device
 * that never identified). Used to load a database directly, bypassing ingestion.
 */
export interface DemoEventWithPerson extends DemoEvent {
  person_id: string;
  /** Epoch ms of `timestamp` (saves re-parsing). */
  timestamp_ms: number;
  session_id: string;
  elements_chain: string | null;
}

/** One person as the Ingestor's `import` accepts it (identified id only; anonymous ids arrive via `$identify`). */
export interface DemoPerson {
  id: string;
  distinct_ids: string[];
  properties: { email: string; plan: string; country: string; name: string };
  /** ISO 8601 (the person's first activity). */
  created_at: string;
  is_identified: true;
}

/** Reference event mix (bench-reference.md). */
export const DEMO_EVENT_MIX: Readonly<Record<string, number>> = {
  $pageview: 0.45,
  $autocapture: 0.18,
  $pageleave: 0.12,
  feature_used: 0.08,
  $identify: 0.05,
  login: 0.05,
  search: 0.04,
  signup: 0.012,
  invite_sent: 0.01,
  purchase: 0.008,
};

export const DEMO_BROWSERS: readonly [string, number][] = [
  ['Chrome', 55],
  ['Safari', 18],
  ['Firefox', 7],
  ['Microsoft Edge', 6],
  ['Samsung Internet', 4],
  ['Opera', 2.5],
  ['Chrome iOS', 2.5],
  ['Android Mobile', 1.5],
  ['Firefox iOS', 1],
  ['Yandex', 0.8],
  ['UC Browser', 0.7],
  ['Internet Explorer', 0.5],
  ['Facebook Mobile', 0.5],
];

export const DEMO_PLANS: readonly [string, number][] = [
  ['free', 70],
  ['pro', 22],
  ['enterprise', 8],
];

const COUNTRIES: readonly [string, number][] = [
  ['US', 34],
  ['GB', 9],
  ['DE', 8],
  ['IN', 7],
  ['FR', 6],
  ['CA', 5],
  ['BR', 5],
  ['NL', 4],
  ['ES', 3.5],
  ['AU', 3.5],
  ['JP', 3],
  ['PL', 3],
  ['SE', 2],
  ['IT', 2],
  ['MX', 2],
  ['NG', 1.5],
  ['SG', 1.5],
];

const REFERRERS: readonly [string, number][] = [
  ['$direct', 40],
  ['www.google.com', 30],
  ['news.ycombinator.com', 6],
  ['github.com', 6],
  ['www.bing.com', 4],
  ['duckduckgo.com', 3],
  ['t.co', 3],
  ['www.linkedin.com', 3],
  ['www.reddit.com', 3],
  ['l.facebook.com', 2],
];

/** Operating systems per browser family (mobile-only browsers get mobile OSes). */
const OS_BY_BROWSER: Record<string, readonly [string, number][]> = {
  Safari: [
    ['Mac OS X', 55],
    ['iOS', 45],
  ],
  'Chrome iOS': [['iOS', 1]],
  'Firefox iOS': [['iOS', 1]],
  'Samsung Internet': [['Android', 1]],
  'Android Mobile': [['Android', 1]],
  'UC Browser': [['Android', 1]],
  'Facebook Mobile': [
    ['Android', 60],
    ['iOS', 40],
  ],
  'Internet Explorer': [['Windows', 1]],
  'Microsoft Edge': [
    ['Windows', 90],
    ['Mac OS X', 10],
  ],
  default: [
    ['Windows', 50],
    ['Mac OS X', 25],
    ['Android', 15],
    ['Linux', 10],
  ],
};

const FEATURES = ['dashboards', 'insights', 'export', 'alerts', 'sharing', 'sql_editor', 'api_keys', 'annotations', 'cohorts', 'webhooks'];
const LOGIN_METHODS: readonly [string, number][] = [
  ['password', 55],
  ['google', 35],
  ['github', 7],
  ['saml', 3],
];
const SIGNUP_SOURCES = ['organic', 'invite', 'ads', 'referral'];
const ELEMENTS = [
  'button.btn.btn-primary:text="Save"nth-child="2"nth-of-type="1"',
  'a.nav-link:href="/pricing"text="Pricing"nth-child="3"nth-of-type="3"',
  'button.btn:text="New insight"nth-child="1"nth-of-type="1"',
  'input.search-input:attr__type="search"nth-child="1"nth-of-type="1"',
  'a:href="/docs"text="Docs"nth-child="4"nth-of-type="4"',
  'button.toggle:text="Show more"nth-child="5"nth-of-type="2"',
];
const HOST = 'app.quarry.example';

/** 200 URL paths, index 0 most popular (Zipf-like weights 1/(k+1)). */
export const DEMO_PATHS: readonly string[] = (() => {
  const fixed = ['/', '/pricing', '/docs', '/login', '/signup', '/dashboard', '/insights', '/settings', '/blog', '/about'];
  const out = [...fixed];
  const sections = ['docs', 'blog', 'insights', 'dashboard', 'features', 'changelog', 'customers', 'integrations'];
  for (let i = 0; out.length < 200; i++) out.push(`/${sections[i % sections.length]}/${1 + Math.floor(i / sections.length)}`);
  return out;
})();

// ---------------------------------------------------------------------------------------------------------------
// PRNG: sfc32 (period ~2^128, fast, well-distributed) seeded through splitmix32.

class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  constructor(seed: number) {
    let s = seed >>> 0;
    const next = () => {
      s = (s + 0x9e3779b9) | 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i++) this.u32();
  }
  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }
  /** Uniform in [0, 1). */
  next(): number {
    return this.u32() / 4294967296;
  }
  /** Uniform in (0, 1]: safe for logs. */
  open(): number {
    return (this.u32() + 1) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  exp(mean: number): number {
    return -Math.log(this.open()) * mean;
  }
  normal(): number {
    return Math.sqrt(-2 * Math.log(this.open())) * Math.cos(2 * Math.PI * this.next());
  }
  hex(n32: number): string {
    let s = '';
    for (let i = 0; i < n32; i++) s += this.u32().toString(16).padStart(8, '0');
    return s;
  }
}

/** Weighted choice table: cumulative weights + binary search. */
class Choice<T> {
  private readonly cum: Float64Array;
  constructor(
    readonly values: readonly T[],
    weights: readonly number[],
  ) {
    this.cum = new Float64Array(weights.length);
    let s = 0;
    weights.forEach((w, i) => (this.cum[i] = s += w));
    for (let i = 0; i < this.cum.length; i++) this.cum[i] /= s;
  }
  static of<T>(pairs: readonly [T, number][]): Choice<T> {
    return new Choice(
      pairs.map((p) => p[0]),
      pairs.map((p) => p[1]),
    );
  }
  index(u: number): number {
    let lo = 0;
    let hi = this.cum.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (u < this.cum[mid]) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
  pick(rng: Rng): T {
    return this.values[this.index(rng.next())];
  }
}

/** RFC 4122-formatted UUID v7 for `ms` with PRNG randomness (deterministic). */
function uuidv7(ms: number, rng: Rng): string {
  const t = ms.toString(16).padStart(12, '0');
  const r = rng.hex(3);
  const variant = ((parseInt(r[3], 16) & 0x3) | 0x8).toString(16);
  return `${t.slice(0, 8)}-${t.slice(8, 12)}-7${r.slice(0, 3)}-${variant}${r.slice(4, 7)}-${r.slice(7, 19)}`;
}

/** Deterministic v4-formatted UUID from a seed stream. */
function uuidv4(rng: Rng): string {
  const h = rng.hex(4);
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const DAY_MS = 86_400_000;
const SESSION_GAP_MS = 30 * 60_000;
const MEAN_BURST = 8;
/**
 * Chance that a later session containing an `$identify` happens on another device (anonymous until that identify
 * merges it). Only sessions that identify switch device, so every anonymous id ends up merged and the number of
 * distinct persons stays `persons`, as in the reference dataset.
 */
const OTHER_DEVICE_P = 0.4;

// ---------------------------------------------------------------------------------------------------------------
// Persons (computed up front: a handful of numbers per person).

interface PersonTable {
  count: number;
  id: string[];
  plan: Uint8Array;
  country: Uint8Array;
  browser: Uint8Array;
  os: Uint8Array;
  startMs: Float64Array;
  endMs: Float64Array;
  /** Events apportioned to the person. */
  n: Float64Array;
  /** Bursts (sessions-to-be) of the person. */
  bursts: Float64Array;
  totalBursts: number;
}

const browserChoice = Choice.of(DEMO_BROWSERS);
const planChoice = Choice.of(DEMO_PLANS);
const countryChoice = Choice.of(COUNTRIES);
const referrerChoice = Choice.of(REFERRERS);
const osChoices = new Map<string, Choice<string>>();
for (const [b] of DEMO_BROWSERS) osChoices.set(b, Choice.of(OS_BY_BROWSER[b] ?? OS_BY_BROWSER.default));
const OS_NAMES = ['Windows', 'Mac OS X', 'Android', 'Linux', 'iOS'];
const pathChoice = new Choice(
  DEMO_PATHS,
  DEMO_PATHS.map((_, k) => 1 / (k + 1)),
);
const loginChoice = Choice.of(LOGIN_METHODS);

function resolved(o: DemoDataOptions): Required<DemoDataOptions> {
  const events = Math.floor(o.events);
  if (!Number.isFinite(events) || events < 0) throw new Error('demo data: events must be a non-negative number');
  const persons = Math.floor(o.persons ?? 50_000);
  if (!(persons >= 1)) throw new Error('demo data: persons must be at least 1');
  const days = o.days ?? 90;
  if (!(days > 0)) throw new Error('demo data: days must be positive');
  return { events, persons, days, seed: (o.seed ?? 42) >>> 0, start: o.start ?? new Date(Date.UTC(2024, 0, 1)) };
}

function buildPersons(o: Required<DemoDataOptions>): PersonTable {
  const P = o.persons;
  const rng = new Rng(o.seed ^ 0x5eed0001);
  const t0 = o.start.getTime();
  const t1 = t0 + o.days * DAY_MS;
  const tab: PersonTable = {
    count: P,
    id: new Array<string>(P),
    plan: new Uint8Array(P),
    country: new Uint8Array(P),
    browser: new Uint8Array(P),
    os: new Uint8Array(P),
    startMs: new Float64Array(P),
    endMs: new Float64Array(P),
    n: new Float64Array(P),
    bursts: new Float64Array(P),
    totalBursts: 0,
  };
  const quota = new Float64Array(P);
  let quotaSum = 0;
  for (let i = 0; i < P; i++) {
    tab.id[i] = uuidv4(rng);
    tab.plan[i] = planChoice.index(rng.next());
    tab.country[i] = countryChoice.index(rng.next());
    const b = browserChoice.index(rng.next());
    tab.browser[i] = b;
    tab.os[i] = OS_NAMES.indexOf(osChoices.get(DEMO_BROWSERS[b][0])!.pick(rng));
    const u = rng.next();
    const start = t0 + u * u * (t1 - t0);
    const end = Math.min(t1 - 1, start + rng.exp(30) * DAY_MS);
    tab.startMs[i] = start;
    tab.endMs[i] = Math.max(end, Math.min(t1 - 1, start + 3_600_000));
    const weight = Math.exp(1.1 * rng.normal());
    quota[i] = weight * Math.max(1 / 24, (tab.endMs[i] - start) / DAY_MS);
    quotaSum += quota[i];
  }
  // Systematic apportionment: exact total, deterministic, O(P). Everyone gets one event first when possible.
  const base = o.events >= P ? 1 : 0;
  const rest = o.events - base * P;
  let cum = 0;
  let prevFloor = 0;
  let total = 0;
  for (let i = 0; i < P; i++) {
    cum += (quota[i] / quotaSum) * rest;
    const f = i === P - 1 ? rest : Math.min(rest, Math.floor(cum + 1e-9));
    const n = base + f - prevFloor;
    prevFloor = f;
    tab.n[i] = n;
    const k = n === 0 ? 0 : Math.max(1, Math.round(n / MEAN_BURST));
    tab.bursts[i] = k;
    total += k;
  }
  tab.totalBursts = total;
  return tab;
}

/** The persons of the dataset, in person order (deterministic ids; same ids the event stream resolves to). */
export function* demoPersons(options: DemoDataOptions): Generator<DemoPerson> {
  const o = resolved(options);
  const tab = buildPersons(o);
  for (let i = 0; i < tab.count; i++) yield personRow(tab, i);
}

function personRow(tab: PersonTable, i: number): DemoPerson {
  return {
    id: tab.id[i],
    distinct_ids: [`user-${i + 1}`],
    properties: {
      email: `user${i + 1}@example${(i % 7) + 1}.com`,
      plan: DEMO_PLANS[tab.plan[i]][0],
      country: COUNTRIES[tab.country[i]][0],
      name: `User ${i + 1}`,
    },
    created_at: new Date(Math.floor(tab.startMs[i])).toISOString(),
    is_identified: true,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Events.

const EV_NAMES = Object.keys(DEMO_EVENT_MIX);
const EV_PAGEVIEW = EV_NAMES.indexOf('$pageview');
const EV_IDENTIFY = EV_NAMES.indexOf('$identify');

interface PersonState {
  /** Events left (including the burst in progress). */
  left: number;
  burstsLeft: number;
  /** Last order statistic drawn for burst starts, in [0, 1]. */
  u: number;
  /** Event types of the current burst, consumed from `pos`. */
  burst: Uint8Array;
  pos: number;
  /** Identify position in the current burst on an anonymous device (-1: none). */
  firstIdentify: number;
  nextMs: number;
  lastMs: number;
  sessionId: string;
  referrer: string;
  /** Device: 0 = primary; otherwise a counter of other devices. */
  device: number;
  deviceCount: number;
  browser: number;
  os: number;
  identified: boolean;
  /** Current device still anonymous. */
  anon: boolean;
  /** The current other-device session stays anonymous (see startBurst). */
  anonLocked: boolean;
  /** Index in DEMO_PATHS of the last $pageview. */
  path: number;
}

/** Min-heap of person indexes keyed by next event time (ties by index: deterministic). */
class Heap {
  private readonly a: number[] = [];
  constructor(private readonly key: (i: number) => number) {}
  get size(): number {
    return this.a.length;
  }
  private less(x: number, y: number): boolean {
    const kx = this.key(x);
    const ky = this.key(y);
    return kx < ky || (kx === ky && x < y);
  }
  push(i: number): void {
    const a = this.a;
    a.push(i);
    let c = a.length - 1;
    while (c > 0) {
      const p = (c - 1) >> 1;
      if (!this.less(a[c], a[p])) break;
      [a[c], a[p]] = [a[p], a[c]];
      c = p;
    }
  }
  peek(): number {
    return this.a[0];
  }
  /** Re-sifts the top after its key grew. */
  replaceTop(): void {
    this.siftDown(0);
  }
  pop(): number {
    const a = this.a;
    const top = a[0];
    const last = a.pop()!;
    if (a.length) {
      a[0] = last;
      this.siftDown(0);
    }
    return top;
  }
  private siftDown(i: number): void {
    const a = this.a;
    const n = a.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.less(a[l], a[m])) m = l;
      if (r < n && this.less(a[r], a[m])) m = r;
      if (m === i) return;
      [a[i], a[m]] = [a[m], a[i]];
      i = m;
    }
  }
}

/**
 * The event stream with each event's resolved person id (see {@link DemoEventWithPerson}), in time order.
 * Use {@link demoEvents} for plain capture-shaped events.
 */
export function* demoEventsWithPersons(options: DemoDataOptions): Generator<DemoEventWithPerson> {
  const o = resolved(options);
  const tab = buildPersons(o);
  const rng = new Rng(o.seed ^ 0x0e0e0e0e);
  const t1 = o.start.getTime() + o.days * DAY_MS;

  // Bursts open with a $pageview, so the other slots use adjusted probabilities that keep the overall mix.
  const N = o.events;
  const B = tab.totalBursts;
  const weights = EV_NAMES.map((name) => DEMO_EVENT_MIX[name] * N - (name === '$pageview' ? B : 0));
  const typeChoice = new Choice(
    EV_NAMES.map((_, i) => i),
    weights.map((w) => Math.max(0, w)),
  );

  const states: (PersonState | undefined)[] = new Array(tab.count);
  const heap = new Heap((i) => states[i]!.nextMs);

  const startBurst = (i: number, s: PersonState) => {
    const k = s.burstsLeft;
    // Next of k sorted uniforms on [u, 1] (sequential order statistics), mapped onto the person's lifetime.
    s.u = s.u + (1 - s.u) * (1 - Math.pow(rng.open(), 1 / k));
    const extra = s.left - k;
    const size = k === 1 ? s.left : 1 + Math.min(extra, Math.round(rng.exp(extra / k)));
    s.burstsLeft--;
    const burst = new Uint8Array(size);
    burst[0] = EV_PAGEVIEW;
    for (let j = 1; j < size; j++) burst[j] = typeChoice.index(rng.next());
    s.burst = burst;
    s.pos = 0;
    const span = tab.endMs[i] - tab.startMs[i];
    let t = tab.startMs[i] + s.u * span;
    // Bursts that overlap or follow within 30 minutes continue the session (sessions are split by inactivity).
    if (s.lastMs >= 0 && t <= s.lastMs) t = s.lastMs + 1000 + rng.exp(20_000);
    if (s.lastMs < 0 || t - s.lastMs > SESSION_GAP_MS) {
      // A new session: sometimes on another device (only once the person is known), anonymous until identified.
      const other = s.identified && burst.indexOf(EV_IDENTIFY) > 0 && rng.next() < OTHER_DEVICE_P;
      if (other) {
        s.deviceCount++;
        s.device = s.deviceCount;
        s.browser = browserChoice.index(rng.next());
        s.os = OS_NAMES.indexOf(osChoices.get(DEMO_BROWSERS[s.browser][0])!.pick(rng));
        s.anon = true;
      } else {
        s.device = 0;
        s.browser = tab.browser[i];
        s.os = tab.os[i];
        s.anon = !s.identified;
      }
      s.anonLocked = false;
      s.sessionId = uuidv7(Math.floor(t), rng);
      s.referrer = referrerChoice.pick(rng);
    } else if (s.anon && s.device !== 0) {
      // Continuing an other-device session whose earlier burst did not identify: its events are already
      // attributed to the device's own anonymous person, so it stays anonymous.
      s.anonLocked = true;
    }
    s.firstIdentify = s.anon && !s.anonLocked ? burst.indexOf(EV_IDENTIFY) : -1;
    s.nextMs = Math.min(t, t1 - 1);
  };

  for (let i = 0; i < tab.count; i++) {
    if (tab.n[i] === 0) continue;
    const s: PersonState = {
      left: tab.n[i],
      burstsLeft: tab.bursts[i],
      u: 0,
      burst: new Uint8Array(0),
      pos: 0,
      firstIdentify: -1,
      nextMs: 0,
      lastMs: -1,
      sessionId: '',
      referrer: '$direct',
      device: 0,
      deviceCount: 0,
      browser: tab.browser[i],
      os: tab.os[i],
      identified: false,
      anon: true,
      anonLocked: false,
      path: 0,
    };
    states[i] = s;
    startBurst(i, s);
    heap.push(i);
  }

  while (heap.size) {
    const i = heap.peek();
    const s = states[i]!;
    const ms = Math.floor(s.nextMs);
    const type = s.burst[s.pos];
    const name = EV_NAMES[type];
    const userId = `user-${i + 1}`;
    const anonId = `anon-${tab.id[i].slice(0, 8)}-${s.device}`;
    // Who the event is sent as, and who it will belong to once merges are applied.
    let distinctId: string;
    let personId = tab.id[i];
    const props: Record<string, unknown> = {};
    if (name === '$identify' && s.anon && s.pos === s.firstIdentify) {
      distinctId = userId;
      props.$anon_distinct_id = anonId;
      s.anon = false;
      s.identified = true;
    } else if (s.anon) {
      distinctId = anonId;
      // A non-primary device whose session never identifies stays a separate anonymous person.
      if (s.device !== 0 && s.firstIdentify < s.pos) personId = deviceUuid(tab.id[i], s.device);
    } else distinctId = userId;

    // Other events happen on the page of the person's last $pageview.
    if (name === '$pageview') s.path = pathChoice.index(rng.next());
    const path = DEMO_PATHS[s.path];
    props.$session_id = s.sessionId;
    props.$browser = DEMO_BROWSERS[s.browser][0];
    props.$os = OS_NAMES[s.os];
    props.$device_type = s.os === 2 || s.os === 4 ? 'Mobile' : 'Desktop';
    props.$current_url = `https://${HOST}${path}`;
    props.$host = HOST;
    props.$pathname = path;
    props.$referring_domain = s.referrer;
    props.$lib = 'web';
    props.plan = DEMO_PLANS[tab.plan[i]][0];
    props.$geoip_country_code = COUNTRIES[tab.country[i]][0];
    let elements: string | null = null;
    switch (name) {
      case '$autocapture':
        props.$event_type = 'click';
        elements = ELEMENTS[rng.int(ELEMENTS.length)];
        props.$elements_chain = elements;
        break;
      case '$identify': {
        const p = personRow(tab, i).properties;
        props.$set = { email: p.email, plan: p.plan, country: p.country, name: p.name };
        props.$set_once = { initial_referring_domain: s.referrer };
        break;
      }
      case 'feature_used':
        props.feature = FEATURES[Math.min(FEATURES.length - 1, Math.floor(rng.exp(2.5)))];
        break;
      case 'login':
        props.method = loginChoice.pick(rng);
        break;
      case 'search':
        props.query_length = 1 + rng.int(30);
        props.results = rng.int(50);
        break;
      case 'signup':
        props.source = SIGNUP_SOURCES[rng.int(SIGNUP_SOURCES.length)];
        break;
      case 'invite_sent':
        props.invitee_count = 1 + Math.floor(rng.exp(0.7));
        break;
      case 'purchase':
        props.amount = Math.round(Math.exp(3.6 + 0.8 * rng.normal()) * 100) / 100;
        props.currency = 'USD';
        break;
    }
    const row: DemoEventWithPerson = {
      uuid: uuidv7(ms, rng),
      event: name,
      distinct_id: distinctId,
      timestamp: new Date(ms).toISOString(),
      properties: props,
      person_id: personId,
      timestamp_ms: ms,
      session_id: s.sessionId,
      elements_chain: elements,
    };

    // Advance the person.
    s.lastMs = ms;
    s.left--;
    s.pos++;
    if (s.left === 0) heap.pop();
    else {
      if (s.pos < s.burst.length) {
        // Within a burst: seconds to minutes apart, always under the 30-minute session gap.
        const gap = Math.min(25 * 60_000, 2000 + rng.exp(40_000));
        s.nextMs = Math.min(ms + gap, t1 - 1);
      } else startBurst(i, s);
      heap.replaceTop();
    }
    yield row;
  }
}

/** Stable id of a never-identified device's anonymous person. */
function deviceUuid(personId: string, device: number): string {
  const d = (device & 0xfff).toString(16).padStart(3, '0');
  return `${personId.slice(0, 14)}5${d}${personId.slice(18)}`;
}

/** The event stream in PostHog capture shape, in time order. Exactly `options.events` rows. */
export function* demoEvents(options: DemoDataOptions): Generator<DemoEvent> {
  for (const e of demoEventsWithPersons(options)) {
    yield { uuid: e.uuid, event: e.event, distinct_id: e.distinct_id, timestamp: e.timestamp, properties: e.properties };
  }
}

/** Async form of {@link demoEvents}, yielding to the event loop every `chunk` events. */
export async function* demoEventsAsync(options: DemoDataOptions, chunk = 10_000): AsyncGenerator<DemoEvent> {
  let n = 0;
  for (const e of demoEvents(options)) {
    yield e;
    if (++n % chunk === 0) await new Promise<void>((r) => setImmediate(r));
  }
}
