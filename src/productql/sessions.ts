/**
 * The `sessions` table (PostHog's sessions v2, posthog/hogql/database/schema/sessions_v2.py): one row per session id
 * of the project's events, computed from them when a query reads it (schema.ts describes how it is joined).
 */
import { alias, call, compare, constant, eq, field, not, or, select, tuple, type Expr, type SelectQuery } from './ast';
import { channelTypeExpr, customChannelTypeExpr, type CustomChannelRule } from './channel-type';

const ts = field('timestamp');
/** The event's `$current_url`, NULL when missing or `''` (PostHog's raw sessions read it with nullIf(…, ''): argMin/argMax skip it). */
const url = call('nullIf', [field('properties', '$current_url'), constant('')]);
const countOf = (...events: string[]): Expr =>
  call('countIf', [events.length === 1 ? eq(field('event'), constant(events[0])) : compare('in', field('event'), tuple(events.map((e) => constant(e))))]);
/** The path of a URL: without scheme and host, query string and fragment (`https://a.com/b?c#d` → `/b`). */
const pathOf = (u: Expr): Expr =>
  call('replaceRegexpOne', [call('replaceRegexpOne', [u, constant('[?#].*$'), constant('')]), constant('^[a-zA-Z][a-zA-Z0-9+.-]*://[^/?#]*'), constant('')]);
/** The host of a URL (`https://a.com:8000/b` → `a.com`); NULL when the URL is NULL. */
const hostOf = (u: Expr): Expr => call('nullIf', [call('domain', [u]), constant('')]);
const duration = call('dateDiff', [constant('second'), call('min', [ts]), call('max', [ts])]);
/** Pageviews, screens and autocaptures: PostHog v2's `page_screen_autocapture_count_up_to`, uncapped. */
const interactions = countOf('$pageview', '$screen', '$autocapture');
/** The first event's value of a property, `''` when that event has none (argMin alone would skip to a later one). */
const firstText = (key: string): Expr => call('argMin', [call('ifNull', [field('properties', key), constant('')]), ts]);
/** The first event's value of a property, NULL when that event has none. */
const firstValue = (key: string): Expr => call('nullIf', [firstText(key), constant('')]);
/** A click id of the first event for the channel type: NULL when missing, `''` or the text `null` (PostHog's `wrap_with_null_if_empty`). */
const clickId = (key: string): Expr => call('nullIf', [firstValue(key), constant('null')]);
const entryUrl = call('argMin', [url, ts]);
const exitUrl = call('argMax', [url, ts]);
/** The distinct non-empty `$current_url`s of the session, sorted (PostHog's `groupUniqArray`, whose order is arbitrary). */
const urls = call('arraySort', [call('groupUniqArray', [url])]);

/** posthog-js's campaign parameters: `utm_*` and the ad networks' click ids, kept from the session's first event. */
const UTM_KEYS = ['utm_source', 'utm_campaign', 'utm_medium', 'utm_term', 'utm_content'] as const;
const CLICK_ID_KEYS = [
  'gclid',
  'gad_source',
  'gclsrc',
  'dclid',
  'gbraid',
  'wbraid',
  'fbclid',
  'msclkid',
  'twclid',
  'li_fat_id',
  'mc_cid',
  'igshid',
  'ttclid',
  'epik',
  'qclid',
  'sccid',
  'irclid',
  '_kx',
] as const;
const entryParams = Object.fromEntries([...UTM_KEYS, ...CLICK_ID_KEYS].map((k) => [`$entry_${k}`, firstValue(k)])) as Record<`$entry_${string}`, Expr>;

/** How long a session must last not to be a bounce, without a `bounceRateDurationSeconds` modifier (PostHog's default). */
export const DEFAULT_BOUNCE_RATE_DURATION_SECONDS = 10;

/**
 * The sessions table's fields, in `*` order, as aggregates over one session's events:
 * - `$session_duration` (and `duration`, its v1 name): whole seconds between the first and the last event;
 * - `$entry_current_url` / `$end_current_url`: the `$current_url` of the first / last event that has one (not `''`)
 *   (`$exit_current_url` is the v1 name of the latter); the pathnames are their paths, the hostnames their hosts;
 * - `$entry_referring_domain`, `$entry_utm_*`, `$entry_<click id>`: the first event's `$referring_domain`, `utm_*`
 *   and click id (`gclid`, `gad_source`, `fbclid`, …), NULL when it has none (PostHog v2's `initial_*` argMin);
 * - `$channel_type`: channel-type.ts over those entry values (after the query's `customChannelTypeRules`, if any);
 * - `$urls`: the distinct `$current_url`s (sorted), `$num_uniq_urls` how many;
 * - `$last_external_click_url`: the last `$external_click_url` (posthog-js sets it on clicks of outbound links);
 * - `$page_screen_autocapture_count_up_to`: pageviews + screens + autocaptures, capped at 2 (PostHog's
 *   `uniqUpTo(1)`: 0, 1, or 2 for "more than one"), what `$is_bounce` is decided on;
 * - `$vitals_lcp`: the first `$web_vitals_LCP_value` of the session, as a number (any event may carry it: posthog-js
 *   sends it on `$web_vitals`), NULL without one;
 * - `$is_bounce` (v2): NULL without any pageview, screen or autocapture; otherwise a bounce (1) when there is at most
 *   one of them and the session lasted less than 10 seconds (a `$pageleave` lengthens it without being one of them);
 *   the query's `bounceRateDurationSeconds` modifier replaces the 10 seconds (see {@link sessionsWith}).
 */
export const SESSION_FIELDS: Record<string, Expr> = {
  // PostHog's sessions tables (v1 and v2) expose the session id as `id` too ("a duplicate of the correct session_id
  // field ... to get some trends working").
  id: field('$session_id'),
  session_id: field('$session_id'),
  // the session's last distinct id (PostHog's raw sessions v2 `distinct_id AggregateFunction(argMax, String, …)`: "the
  // latest value of distinct_id for the session", which after an identify is the identified user's)
  distinct_id: call('argMax', [field('distinct_id'), ts]),
  $start_timestamp: call('min', [ts]),
  $end_timestamp: call('max', [ts]),
  $session_duration: duration,
  duration,
  $pageview_count: countOf('$pageview'),
  $autocapture_count: countOf('$autocapture'),
  $screen_count: countOf('$screen'),
  $page_screen_autocapture_count_up_to: call('least', [interactions, constant(2)]),
  $entry_current_url: entryUrl,
  $end_current_url: exitUrl,
  $exit_current_url: exitUrl,
  $entry_pathname: pathOf(entryUrl),
  $end_pathname: pathOf(exitUrl),
  $exit_pathname: pathOf(exitUrl),
  $entry_hostname: hostOf(entryUrl),
  $end_hostname: hostOf(exitUrl),
  $exit_hostname: hostOf(exitUrl),
  $urls: urls,
  $num_uniq_urls: call('length', [urls]),
  $last_external_click_url: call('argMaxIf', [field('properties', '$external_click_url'), ts, compare('!=', call('ifNull', [field('properties', '$external_click_url'), constant('')]), constant(''))]),
  $entry_referring_domain: firstValue('$referring_domain'),
  ...entryParams,
  // the same aggregates as the entry fields above (computed once), read as text ('' when missing): short to repeat
  $channel_type: channelTypeExpr({
    source: firstText('utm_source'),
    medium: firstText('utm_medium'),
    campaign: firstText('utm_campaign'),
    referringDomain: firstText('$referring_domain'),
    hasGclid: call('isNotNull', [clickId('gclid')]),
    hasFbclid: call('isNotNull', [clickId('fbclid')]),
    gadSource: clickId('gad_source'),
  }),
  $vitals_lcp: call('argMin', [call('toFloat', [field('properties', '$web_vitals_LCP_value')]), ts]),
  $is_bounce: isBounce(DEFAULT_BOUNCE_RATE_DURATION_SECONDS),
};

/** `$is_bounce` with a session of at least `seconds` never a bounce (PostHog's `bounceRateDurationSeconds` modifier). */
function isBounce(seconds: number): Expr {
  return call('if', [eq(interactions, constant(0)), constant(null), not(or(compare('>', interactions, constant(1)), compare('>=', duration, constant(seconds))))]);
}

/** The query's modifiers that change sessions fields (PostHog's HogQLQueryModifiers of those names). */
export interface SessionModifiers {
  /** The shortest session that is no bounce (`$is_bounce`), default 10. */
  bounceRateDurationSeconds?: number;
  /** Rules tried before the default `$channel_type`, on the session's entry values (channel-type.ts). */
  customChannelTypeRules?: readonly CustomChannelRule[];
}

/** `$channel_type` with custom rules: their conditions read the entry fields (the utm values as sent, not lowercased). */
function customChannelType(rules: readonly CustomChannelRule[]): Expr {
  return customChannelTypeExpr(
    rules,
    {
      utm_source: entryParams.$entry_utm_source,
      utm_medium: entryParams.$entry_utm_medium,
      utm_campaign: entryParams.$entry_utm_campaign,
      referring_domain: firstValue('$referring_domain'),
      url: entryUrl,
      hostname: hostOf(entryUrl),
      pathname: pathOf(entryUrl),
    },
    SESSION_FIELDS.$channel_type,
  );
}

/** Fields whose value is a list (not a property value a filter or breakdown can compare). */
export const SESSION_LIST_FIELDS: ReadonlySet<string> = new Set(['$urls']);

/** The `sessions` table: one row per session id of the project's events. */
export const SESSIONS_QUERY: SelectQuery = sessionsWith(Object.keys(SESSION_FIELDS));

/**
 * The sessions query computing only `fields` (and `session_id`): what `events.session.<field>` joins, so that a query
 * reading one field does not print (and make the engine plan) every aggregate of the table. `modifiers`: the query's
 * modifiers changing `$is_bounce` and `$channel_type`.
 */
export function sessionsWith(fields: readonly string[], modifiers: SessionModifiers = {}): SelectQuery {
  const names = Object.keys(SESSION_FIELDS).filter((f) => f === 'session_id' || fields.includes(f));
  const { bounceRateDurationSeconds: bounce, customChannelTypeRules: rules } = modifiers;
  const expr = (name: string): Expr => {
    if (name === '$is_bounce' && bounce !== undefined && bounce !== DEFAULT_BOUNCE_RATE_DURATION_SECONDS) return isBounce(bounce);
    if (name === '$channel_type' && rules?.length) return customChannelType(rules);
    return SESSION_FIELDS[name];
  };
  return select({
    select: names.map((name) => alias(name, expr(name))),
    from: 'events',
    // `$session_id` reads '' (never NULL) when an event has none: such events make no session, as in PostHog's sessions tables.
    where: compare('!=', field('$session_id'), constant('')),
    groupBy: [field('$session_id')],
  });
}
