/**
 * The person properties PostHog's ingestion derives from event properties (plugin-server utils/db/utils.ts
 * `personInitialAndUTMProperties`, called by `normalizeEvent` for every event but `$snapshot` and
 * `$performance_event`): each of {@link EVENT_TO_PERSON_PROPERTIES} the event carries goes into its `$set` under its own
 * name and into its `$set_once` as `$initial_<name without the leading $>` (`$current_url` → `$initial_current_url`,
 * `utm_source` → `$initial_utm_source`); values the event sets explicitly in `$set` / `$set_once` win. Mobile SDKs
 * send `$os_name` instead of `$os`: it stands in for a missing `$os` (on the event too).
 *
 * Identity applies them; a `$set` of one of these keys that only changes a value the person already has does not by
 * itself rewrite the person (identity.ts, PostHog's applyEventPropertyUpdates: "only set updated if the key is not in
 * eventToPersonProperties or if it's not set already"), so pageviews with changing URLs do not rewrite their person
 * on every event.
 *
 * Deviation: PostHog also stores the derived `$set` / `$set_once` in the event's properties. Quarry gives them to the
 * person only (the identity properties name the keys, {@link DERIVED_KEY}; the values are read from the stored text
 * when needed): stored, they made the bench dataset's properties 2.3× larger (325 → 737 bytes an event) and doubled
 * the capture parse CPU (8 → 17 µs an event), for copies of values the event already holds.
 *
 * Captured events only: imports (Ingestor.import, the native import) derive nothing; a PostHog export already holds
 * these `$set` / `$set_once`. A captured record replayed from the log derives them again (ingestor.ts).
 */

const CAMPAIGN_PARAMS = [
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_content',
  'utm_name',
  'utm_term',
  'gclid', // google ads
  'gad_source', // google ads
  'gclsrc', // google ads 360
  'dclid', // google display ads
  'gbraid', // google ads, web to app
  'wbraid', // google ads, app to web
  'fbclid', // facebook
  'msclkid', // microsoft
  'twclid', // twitter
  'li_fat_id', // linkedin
  'mc_cid', // mailchimp campaign id
  'igshid', // instagram
  'ttclid', // tiktok
  'rdt_cid', // reddit
  'epik', // pinterest
  'qclid', // quora
  'sccid', // snapchat
  'irclid', // impact
  '_kx', // klaviyo
];

/** Event properties copied to the person (`$set`) and, once, as `$initial_*` (`$set_once`). */
export const EVENT_TO_PERSON_PROPERTIES: ReadonlySet<string> = new Set([
  // mobile
  '$app_build',
  '$app_name',
  '$app_namespace',
  '$app_version',
  // web
  '$browser',
  '$browser_version',
  '$device_type',
  '$current_url',
  '$pathname',
  '$os',
  '$os_version',
  '$referring_domain',
  '$referrer',
  '$screen_height',
  '$screen_width',
  '$viewport_height',
  '$viewport_width',
  '$raw_user_agent',
  ...CAMPAIGN_PARAMS,
]);

const KEYS = [...EVENT_TO_PERSON_PROPERTIES];
const INITIAL_KEYS = KEYS.map((k) => `$initial_${k.replace('$', '')}`);
/** Each key's `$initial_*` name. */
const INITIAL_NAME = new Map(KEYS.map((k, i) => [k, INITIAL_KEYS[i]]));
/** Each key's one-character code in {@link derivedSource} texts. */
const CODE = new Map(KEYS.map((k, i) => [k, String.fromCharCode(48 + i)]));

/**
 * Events whose properties give the person nothing: session replay payloads (PostHog's normalizeEvent skips them) and
 * `$groupidentify` (its `$set` / `$set_once` are removed: normalizeProcessPerson).
 */
const SKIPPED_EVENTS = new Set(['$snapshot', '$performance_event', '$groupidentify']);

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const blank = (v: unknown) => v === undefined || v === null || v === '';

/**
 * `$os_name` (what mobile SDKs send) standing in for a missing `$os`: `props` itself when it does not apply, else a
 * copy. PostHog puts it on the stored event too (capture-payload.ts does, before the text is made).
 */
export function withOsFallback(props: Record<string, unknown>): Record<string, unknown> {
  return !blank(props.$os_name) && blank(props.$os) ? { ...props, $os: props.$os_name } : props;
}

/**
 * The `$set` / `$set_once` the event gives its person, the event's own ones winning over the derived values; null
 * when nothing is derived (none of the keys, a skipped event, a personless one). Walks the event's own keys (~12 an
 * event on the bench dataset: ~0.7 µs an event, reading the 43 names one by one cost ~1.2 µs) and copies no
 * properties (this runs for every captured event, in the parse workers).
 */
export function personInitialUpdates(
  event: string,
  props: Record<string, unknown>,
): { $set: Record<string, unknown>; $set_once: Record<string, unknown> } | null {
  if (SKIPPED_EVENTS.has(event) || props.$process_person_profile === false) return null;
  let set: Record<string, unknown> | null = null;
  let once: Record<string, unknown> | null = null;
  for (const k in props) {
    const initial = INITIAL_NAME.get(k);
    if (initial === undefined) continue;
    const v = props[k];
    if (v === undefined) continue;
    (set ??= {})[k] = v;
    (once ??= {})[initial] = v;
  }
  if (blank(props.$os) && !blank(props.$os_name)) {
    (set ??= {}).$os = props.$os_name;
    (once ??= {}).$initial_os = props.$os_name;
  }
  if (set === null) return null;
  const explicitSet = props.$set;
  const explicitOnce = props.$set_once;
  return {
    $set: isObj(explicitSet) ? { ...set, ...explicitSet } : set,
    $set_once: isObj(explicitOnce) ? { ...once, ...explicitOnce } : once!,
  };
}

/**
 * Key of the identity properties (capture-payload.ts slimProperties) naming the keys a captured event derives person
 * properties from, one character each (see {@link derivedKeys}); the values stay in the event's stored text. The parse
 * workers send identity properties to the main thread by structured clone: the derived `$set` / `$set_once` as
 * objects cost ~3.5 µs of the main thread an event to receive and ~1.7 µs to apply on the bench dataset (measured
 * with the capture bench: the main thread's CPU an event went from ~8 to ~16 µs under load). Identity reads the values
 * (parsing the event's text) only when the person lacks one of the keys or the event changes something else.
 */
export const DERIVED_KEY = '$$quarry_derived_person';

/** The keys the event derives person properties from, a character each; null when nothing is derived. */
export function derivedKeys(event: string, props: Record<string, unknown>): string | null {
  if (SKIPPED_EVENTS.has(event) || props.$process_person_profile === false) return null;
  let codes = '';
  for (const k in props) {
    const c = CODE.get(k);
    if (c !== undefined && props[k] !== undefined) codes += c;
  }
  if (blank(props.$os) && !blank(props.$os_name)) codes += CODE.get('$os')!;
  return codes === '' ? null : codes;
}

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/**
 * Whether the person already has every key of a {@link derivedKeys} text and its `$initial_*`: then the event can
 * change nothing through them on its own (the `$set_once` keys exist; the `$set` keys would only get new values,
 * which is no change by itself).
 */
export function derivedCovered(codes: string, person: Record<string, unknown>): boolean {
  for (let i = 0; i < codes.length; i++) {
    const c = codes.charCodeAt(i) - 48;
    if (c < 0 || c >= KEYS.length || !hasOwn(person, KEYS[c]) || !hasOwn(person, INITIAL_KEYS[c])) return false;
  }
  return true;
}

/**
 * Identity properties with their {@link DERIVED_KEY} replaced by the derived `$set` / `$set_once` (the event's own
 * winning), read from the event's whole properties (`full`); `props` itself when there is no such key.
 */
export function expandDerived(props: Record<string, unknown>, full: () => Record<string, unknown>): Record<string, unknown> {
  if (typeof props[DERIVED_KEY] !== 'string') return props;
  const out: Record<string, unknown> = { ...props };
  delete out[DERIVED_KEY];
  const d = personInitialUpdates('', full());
  if (d === null) return out;
  out.$set = isObj(props.$set) ? { ...d.$set, ...props.$set } : d.$set;
  out.$set_once = isObj(props.$set_once) ? { ...d.$set_once, ...props.$set_once } : d.$set_once;
  return out;
}

/**
 * The event's properties with the derived `$set` / `$set_once` in place of its own: `props` itself when nothing is
 * derived, else a copy (the caller's object is not changed). Idempotent. For events read back from the log, whose
 * properties are whole; captured events get the same through slimProperties (capture-payload.ts) without a copy.
 */
export function withPersonInitialProperties(event: string, props: Record<string, unknown>): Record<string, unknown> {
  const d = personInitialUpdates(event, props);
  return d === null ? props : { ...props, ...d };
}
