/**
 * The sessions table and channel types, as PostHog's tests pin them: posthog/hogql/database/schema/test/
 * test_channel_type.py (a visit's `$channel_type` from its utm_*, click ids and referring domain; PostHog runs the
 * cases on person `$initial_*` properties and on sessions alike, Quarry has them on sessions), test_sessions_v2.py
 * (the v2 fields: entry utm/click ids, `$urls`, `$last_external_click_url`, `$page_screen_autocapture_count_up_to`,
 * `$is_bounce`, v1 and v2 names, `events.session.*`) and session properties of those fields in insights (PostHog's
 * web analytics channel breakdowns). Data go through the real ingest path, queries through the real runners.
 */
import { ev, openHarness, type Harness } from '../queries/funnels/testing';
import { productqlRunner } from '../queries/runners/productql-runner';
import { trendsRunner } from '../queries/runners/trends-runner';
import { useInsightsClock } from '../queries/insights/testing';
import { BREAKDOWN_NULL } from '../queries/insights/breakdown';
import { shutdownParser } from './index';
import { CHANNEL_TYPES } from './channel-type';

let h: Harness;
const freeze = useInsightsClock();
afterAll(async () => {
  await h?.close();
  await shutdownParser();
});

const pageview = (session: string, t: string, props: Record<string, unknown> = {}) => ev('u', '$pageview', t, { $session_id: session, ...props });

/*
 * test_channel_type.py: each case is one visit (a session of one pageview) with these properties. `$referring_domain`
 * is what posthog-js sends (`$direct` without a referrer).
 */
const CHANNEL_CASES: [string, Record<string, unknown>, string][] = [
  ['test_direct', { $referring_domain: '$direct', $current_url: 'https://www.google.com/' }, 'Direct'],
  ['test_direct_empty_string', { $referring_domain: '$direct', utm_source: '', utm_medium: '' }, 'Direct'],
  ['test_direct_null_string', { $referring_domain: '$direct', utm_source: 'null', utm_medium: 'null' }, 'Direct'],
  ['direct: utm_source (direct)', { $referring_domain: '$direct', utm_source: '(direct)' }, 'Direct'],
  ['direct: a campaign alone does not make it another channel', { $referring_domain: '$direct', utm_campaign: 'spring' }, 'Direct'],
  ['test_cross_network', { $referring_domain: '$direct', utm_campaign: 'cross-network' }, 'Cross Network'],
  ['test_paid_shopping_domain', { $referring_domain: 'www.ebay.co.uk', utm_medium: 'ppc' }, 'Paid Shopping'],
  ['test_paid_shopping_source', { $referring_domain: '$direct', utm_source: 'ebay', utm_medium: 'ppc' }, 'Paid Shopping'],
  ['test_paid_shopping_campaign', { $referring_domain: 'www.example.com', utm_campaign: 'shopping', utm_medium: 'ppc' }, 'Paid Shopping'],
  ['test_paid_search: a gclid from google', { $referring_domain: 'www.google.co.uk', gclid: 'some-gclid' }, 'Paid Search'],
  ['paid search: utm_source google, utm_medium cpc (compared lowercased)', { $referring_domain: '$direct', utm_source: 'Google', utm_medium: 'CPC' }, 'Paid Search'],
  ['paid search: gad_source 1 alone', { $referring_domain: '$direct', gad_source: '1' }, 'Paid Search'],
  ['test_paid_video', { $referring_domain: 'www.youtube.com', utm_medium: 'cpc' }, 'Paid Video'],
  ['paid social: a paid* medium and a social source', { $referring_domain: '$direct', utm_source: 'facebook', utm_medium: 'paid_social' }, 'Paid Social'],
  ['paid social: cpc from an unknown source with an fbclid', { $referring_domain: '$direct', utm_medium: 'cpc', fbclid: 'fb1' }, 'Paid Social'],
  ['paid unknown: cpc from an unknown source', { $referring_domain: '$direct', utm_source: 'newsletterco', utm_medium: 'cpc' }, 'Paid Unknown'],
  ['test_organic_search', { $referring_domain: 'www.google.com' }, 'Organic Search'],
  ['organic search: utm_source google without a medium', { $referring_domain: '$direct', utm_source: 'google' }, 'Organic Search'],
  ['organic search: utm_medium organic', { $referring_domain: '$direct', utm_source: 'newsletterco', utm_medium: 'organic' }, 'Organic Search'],
  ['test_organic_video', { $referring_domain: 'www.youtube.com' }, 'Organic Video'],
  ['organic social: m.facebook.com', { $referring_domain: 'm.facebook.com' }, 'Organic Social'],
  ['organic social: t.co', { $referring_domain: 't.co' }, 'Organic Social'],
  ['organic social: Hacker News', { $referring_domain: 'news.ycombinator.com' }, 'Organic Social'],
  ['organic social: an fbclid is no sign of payment, nor of a direct visit', { $referring_domain: '$direct', fbclid: 'fb1' }, 'Organic Social'],
  ['organic shopping: a shop campaign', { $referring_domain: 'blog.example.com', utm_campaign: 'summer-shop' }, 'Organic Shopping'],
  ['email: utm_source email', { $referring_domain: '$direct', utm_source: 'email' }, 'Email'],
  ['email: utm_medium e-mail', { $referring_domain: 'mail.example.com', utm_medium: 'e-mail' }, 'Email'],
  ['affiliate: utm_medium affiliate', { $referring_domain: 'partner.example.com', utm_medium: 'affiliate' }, 'Affiliate'],
  ['audio: utm_medium audio', { $referring_domain: '$direct', utm_medium: 'audio' }, 'Audio'],
  ['sms: utm_source sms', { $referring_domain: '$direct', utm_source: 'sms' }, 'SMS'],
  ['push: utm_medium push', { $referring_domain: '$direct', utm_medium: 'push' }, 'Push'],
  ['push: a medium ending in push', { $referring_domain: '$direct', utm_medium: 'web-push' }, 'Push'],
  ['push: utm_source firebase', { $referring_domain: '$direct', utm_source: 'firebase' }, 'Push'],
  ['referral: utm_medium referral', { $referring_domain: 'example.com', utm_medium: 'referral' }, 'Referral'],
  ['test_unknown_domain_is_referral', { $referring_domain: 'example.com' }, 'Referral'],
  ['test_doesnt_fail_on_numbers', { $referring_domain: 'example.com', utm_source: 123, utm_medium: 456, utm_campaign: 789 }, 'Referral'],
  ['test_no_info_is_unknown', {}, 'Unknown'],
  ['test_direct_empty_string: every campaign field and click id empty', { $referring_domain: '$direct', utm_source: '', utm_medium: '', utm_campaign: '', gclid: '', gad_source: '' }, 'Direct'],
  ['test_direct_null_string: every campaign field and click id the text null', { $referring_domain: '$direct', utm_source: 'null', utm_medium: 'null', utm_campaign: 'null', gclid: 'null', gad_source: 'null' }, 'Direct'],
  ['test_firefox_google_search_for_shoes', { $current_url: 'https://www.zappos.com/c/shoes', $host: 'www.zappos.com', $pathname: '/c/shoes', $referrer: 'https://www.google.com/', $referring_domain: 'www.google.com' }, 'Organic Search'],
  ['google paid search click: gclid and gad_source 1 from www.google.com', { $current_url: 'https://www.example.com/?gad_source=1&gclid=abc', $referring_domain: 'www.google.com', gclid: 'abc', gad_source: '1' }, 'Paid Search'],
  ['daily mail ad click: cpc from an unknown source', { $referring_domain: 'www.dailymail.co.uk', utm_source: 'dailymail', utm_medium: 'cpc', utm_campaign: 'uk_dm_flats' }, 'Paid Unknown'],
  ['organic social: l.facebook.com', { $referring_domain: 'l.facebook.com' }, 'Organic Social'],
  ['organic social: www.reddit.com', { $referring_domain: 'www.reddit.com' }, 'Organic Social'],
  ['referral: a zendesk help center link', { $referring_domain: 'posthoghelp.zendesk.com' }, 'Referral'],
  ['organic search: duckduckgo.com', { $referring_domain: 'duckduckgo.com' }, 'Organic Search'],
  ['organic search: www.bing.com', { $referring_domain: 'www.bing.com' }, 'Organic Search'],
  ['daily mail ad click: a gclid from a googlesyndication safeframe', { $current_url: 'https://www.vivaia.com/item/flats.html?gclid=EAIa', $referring_domain: '2bb5cd7f10ba63d8b55ecfac1a3948db.safeframe.googlesyndication.com', gclid: 'EAIa' }, 'Paid Unknown'],
  ['youtube video ad click: utm_source youtube, utm_medium paid, a gclid', { $referring_domain: 'www.youtube.com', utm_source: 'youtube', utm_medium: 'paid', gclid: 'abc' }, 'Paid Video'],
  ['bing ad click: utm_source bing, utm_medium cpc, an msclkid', { $referring_domain: 'www.bing.com', utm_source: 'bing', utm_medium: 'cpc', msclkid: 'm' }, 'Paid Search'],
  ['organic social: l.instagram.com', { $referring_domain: 'l.instagram.com' }, 'Organic Social'],
  ['organic social: lnkd.in', { $referring_domain: 'lnkd.in' }, 'Organic Social'],
  ['organic video: utm_source youtube without a medium', { $referring_domain: '$direct', utm_source: 'youtube' }, 'Organic Video'],
  ['paid social: utm_source fb, utm_medium paid', { $referring_domain: 'l.facebook.com', utm_source: 'fb', utm_medium: 'paid', fbclid: 'x' }, 'Paid Social'],
];

let channels: number;
let fields: number;
const T = (s: number): string => new Date(Date.UTC(2024, 0, 10, 12, 0, s)).toISOString();

beforeAll(async () => {
  h = await openHarness();
  freeze('2024-01-12T00:00:00Z');
  channels = await h.load({
    persons: [{ distinct_ids: ['u'], properties: {} }],
    events: CHANNEL_CASES.map(([, props], i) => pageview(`c${i}`, T(i), props)),
  });
  // test_sessions_v2.py scenarios, one session each
  fields = await h.load({
    persons: [{ distinct_ids: ['u'], properties: {} }],
    events: [
      // s1: utm and click ids on the first event only count; three urls (one twice), two external clicks
      pageview('s1', '2024-01-10T10:00:00Z', {
        $current_url: 'https://www.example.com/landing?utm_source=google',
        $referring_domain: 'www.google.com',
        utm_source: 'google',
        utm_medium: 'cpc',
        utm_campaign: 'brand',
        utm_term: 'quarry',
        utm_content: 'ad1',
        gclid: 'g1',
        gad_source: '1',
        msclkid: 'm1',
      }),
      ev('u', '$autocapture', '2024-01-10T10:00:05Z', { $session_id: 's1', $current_url: 'https://www.example.com/landing?utm_source=google', $external_click_url: 'https://out.com/1' }),
      pageview('s1', '2024-01-10T10:00:20Z', { $current_url: 'https://www.example.com/pricing', utm_source: 'bing', fbclid: 'late' }),
      ev('u', '$autocapture', '2024-01-10T10:00:30Z', { $session_id: 's1', $current_url: 'https://www.example.com/pricing', $external_click_url: 'https://out.com/2' }),
      pageview('s1', '2024-01-10T10:01:00Z', { $current_url: 'https://docs.example.com/start#intro' }),
      ev('u', 'custom', '2024-01-10T10:01:10Z', { $session_id: 's1' }),
      // s2: one pageview: a bounce; no external click; no utm
      pageview('s2', '2024-01-10T11:00:00Z', { $current_url: 'https://www.example.com/', $referring_domain: '$direct' }),
      // s3: a pageview and an autocapture within 10 s: two interactions, not a bounce
      pageview('s3', '2024-01-10T12:00:00Z', { $current_url: 'https://www.example.com/a', $referring_domain: 'news.ycombinator.com' }),
      ev('u', '$autocapture', '2024-01-10T12:00:01Z', { $session_id: 's3', $current_url: 'https://www.example.com/a' }),
      // s4: no pageview, screen or autocapture
      ev('u', 'custom', '2024-01-10T13:00:00Z', { $session_id: 's4' }),
      // an event without a session
      ev('u', 'custom', '2024-01-10T14:00:00Z', {}),
    ],
  });
});

const rows = async (query: string, project: number) => (await h.run(productqlRunner, { kind: 'HogQLQuery', query }, project)).results;

describe('test_channel_type.py: $channel_type of a session', () => {
  let byCase: Map<string, string>;
  beforeAll(async () => {
    const r = await rows('select session_id, $channel_type from sessions', channels);
    byCase = new Map(r.map(([id, type]: [string, string]) => [id, type]));
  });

  it.each(CHANNEL_CASES.map(([name, props, expected], i) => [name, props, expected, i] as const))('%s: %j → %s', (_name, _props, expected, i) => {
    expect(byCase.get(`c${i}`)).toBe(expected);
  });

  it('every case answers one of PostHog’s channel types', () => {
    for (const type of byCase.values()) expect(CHANNEL_TYPES).toContain(type);
  });

  it('test_sessions_v2 test_event_dot_session_dot_channel_type: events.session.$channel_type', async () => {
    const i = CHANNEL_CASES.findIndex(([name]) => name === 'paid search: gad_source 1 alone');
    expect(await rows(`select session.$channel_type, events.session.$channel_type from events where $session_id = 'c${i}'`, channels)).toEqual([['Paid Search', 'Paid Search']]);
  });
});

/*
 * test_channel_type.py custom channel types: the customChannelTypeRules modifier's rules come before the default
 * channel type, the first that holds wins. Sessions of `fields`: s1 enters /landing on www.example.com from
 * www.google.com with utm google/cpc/brand (Paid Search by default), s2 / on www.example.com directly (Direct), s3 /a
 * from news.ycombinator.com (Organic Social), s4 has no url (Unknown).
 */
describe('test_channel_type.py: custom channel type rules (the customChannelTypeRules modifier)', () => {
  type Item = { key: string; op: string; value?: string | string[] };
  const rule = (channel_type: string, items: Item[], combiner = 'AND') => ({ id: channel_type, channel_type, combiner, items: items.map((x, i) => ({ id: String(i), ...x })) });
  const types = async (rules: unknown[]) =>
    (await h.run(productqlRunner, { kind: 'HogQLQuery', query: 'select session_id, $channel_type from sessions order by session_id', modifiers: { customChannelTypeRules: rules } }, fields)).results;

  it('without rules (or with none) the default channel types', async () => {
    const defaults = [
      ['s1', 'Paid Search'],
      ['s2', 'Direct'],
      ['s3', 'Organic Social'],
      ['s4', 'Unknown'],
    ];
    expect(await rows('select session_id, $channel_type from sessions order by session_id', fields)).toEqual(defaults);
    expect(await types([])).toEqual(defaults);
  });

  it('an exact utm_source rule names its sessions; the others keep their default type', async () => {
    expect(await types([rule('Test', [{ key: 'utm_source', op: 'exact', value: 'google' }])])).toEqual([
      ['s1', 'Test'],
      ['s2', 'Direct'],
      ['s3', 'Organic Social'],
      ['s4', 'Unknown'],
    ]);
  });

  it('the first rule that holds wins; AND needs every condition, OR one', async () => {
    const r = await types([
      rule('Both', [
        { key: 'hostname', op: 'exact', value: 'www.example.com' },
        { key: 'referring_domain', op: 'exact', value: 'news.ycombinator.com' },
      ]),
      rule('Either', [{ key: 'pathname', op: 'exact', value: '/a' }, { key: 'utm_medium', op: 'exact', value: 'cpc' }], 'OR'),
      rule('Later', [{ key: 'utm_campaign', op: 'exact', value: 'brand' }]),
    ]);
    expect(r).toEqual([
      ['s1', 'Either'],
      ['s2', 'Direct'],
      ['s3', 'Both'],
      ['s4', 'Unknown'],
    ]);
  });

  it('operators: exact with a list, is_not, icontains, regex, is_set and is_not_set', async () => {
    const one = async (item: Item) => (await types([rule('Custom', [item])])).filter(([, t]: string[]) => t === 'Custom').map(([id]: string[]) => id);
    expect(await one({ key: 'pathname', op: 'exact', value: ['/', '/a'] })).toEqual(['s2', 's3']);
    // a missing url (s4): the negative operators hold, as HogQL's comparisons of a NULL (ifNull(notEquals(…), 1))
    expect(await one({ key: 'pathname', op: 'is_not', value: '/' })).toEqual(['s1', 's3', 's4']);
    expect(await one({ key: 'url', op: 'icontains', value: 'LANDING' })).toEqual(['s1']);
    expect(await one({ key: 'url', op: 'not_icontains', value: 'landing' })).toEqual(['s2', 's3', 's4']);
    expect(await one({ key: 'referring_domain', op: 'regex', value: '^news\\.' })).toEqual(['s3']);
    expect(await one({ key: 'utm_source', op: 'is_set' })).toEqual(['s1']);
    expect(await one({ key: 'utm_source', op: 'is_not_set' })).toEqual(['s2', 's3', 's4']);
  });

  it('events.session.$channel_type follows the rules too', async () => {
    const r = await h.run(
      productqlRunner,
      {
        kind: 'HogQLQuery',
        query: "select distinct session.$channel_type from events where $session_id = 's2'",
        modifiers: { customChannelTypeRules: [rule('Home', [{ key: 'pathname', op: 'exact', value: '/' }])] },
      },
      fields,
    );
    expect(r.results).toEqual([['Home']]);
  });

  it('a TrendsQuery breakdown by $channel_type follows its rules too (QueryRunner.modifiers)', async () => {
    const channels = async (modifiers?: Record<string, unknown>) =>
      (
        await h.run(
          trendsRunner,
          {
            kind: 'TrendsQuery',
            series: [{ kind: 'EventsNode', event: '$pageview', math: 'unique_session' }],
            dateRange: { date_from: '2024-01-10', date_to: '2024-01-10' },
            breakdownFilter: { breakdown_type: 'session', breakdown: '$channel_type' },
            ...(modifiers ? { modifiers } : {}),
          },
          fields,
        )
      ).results
        .map((r: any) => [r.breakdown_value, r.count])
        .sort();
    expect(await channels()).toEqual([
      ['Direct', 1],
      ['Organic Social', 1],
      ['Paid Search', 1],
    ]);
    expect(await channels({ customChannelTypeRules: [rule('Home', [{ key: 'pathname', op: 'exact', value: '/' }])] })).toEqual([
      ['Home', 1],
      ['Organic Social', 1],
      ['Paid Search', 1],
    ]);
  });
});

describe('test_sessions_v2.py: the v2 fields', () => {
  it('entry utm parameters and click ids are the first event’s; NULL without them', async () => {
    const r = await rows(
      "select session_id, $entry_utm_source, $entry_utm_medium, $entry_utm_campaign, $entry_utm_term, $entry_utm_content, $entry_gclid, $entry_gad_source, $entry_msclkid, $entry_fbclid, $entry_referring_domain, $channel_type from sessions where session_id in ('s1', 's2') order by session_id",
      fields,
    );
    expect(r).toEqual([
      ['s1', 'google', 'cpc', 'brand', 'quarry', 'ad1', 'g1', '1', 'm1', null, 'www.google.com', 'Paid Search'],
      ['s2', null, null, null, null, null, null, null, null, null, '$direct', 'Direct'],
    ]);
  });

  it('test_urls: $urls are the distinct urls, $num_uniq_urls how many', async () => {
    expect(await rows('select session_id, $urls, $num_uniq_urls from sessions order by session_id', fields)).toEqual([
      ['s1', ['https://docs.example.com/start#intro', 'https://www.example.com/landing?utm_source=google', 'https://www.example.com/pricing'], 3],
      ['s2', ['https://www.example.com/'], 1],
      ['s3', ['https://www.example.com/a'], 1],
      ['s4', [], 0],
    ]);
  });

  it('test_last_external_click_url: the last external click of the session, NULL without one', async () => {
    expect(await rows('select session_id, $last_external_click_url from sessions order by session_id', fields)).toEqual([
      ['s1', 'https://out.com/2'],
      ['s2', null],
      ['s3', null],
      ['s4', null],
    ]);
  });

  it('test_page_screen_autocapture_count_up_to and test_bounce_rate', async () => {
    // $is_bounce is `not(...)`: UInt8 in ClickHouse, 0/1 as PostHog's test_bounce_rate asserts
    expect(await rows('select session_id, $page_screen_autocapture_count_up_to, $is_bounce, $session_duration from sessions order by session_id', fields)).toEqual([
      ['s1', 2, 0, 70],
      ['s2', 1, 1, 0],
      ['s3', 2, 0, 1],
      ['s4', 0, null, 0],
    ]);
  });

  it('entry and end hostnames are the hosts of the entry and end urls', async () => {
    expect(await rows('select session_id, $entry_hostname, $end_hostname, $exit_hostname from sessions order by session_id', fields)).toEqual([
      ['s1', 'www.example.com', 'docs.example.com', 'docs.example.com'],
      ['s2', 'www.example.com', 'www.example.com', 'www.example.com'],
      ['s3', 'www.example.com', 'www.example.com', 'www.example.com'],
      ['s4', null, null, null],
    ]);
  });

  it('test_can_use_v1_and_v2_fields', async () => {
    expect(
      await rows("select $session_duration, duration, $end_current_url, $exit_current_url, $end_pathname, $exit_pathname from sessions where session_id = 's1'", fields),
    ).toEqual([[70, 70, 'https://docs.example.com/start#intro', 'https://docs.example.com/start#intro', '/start', '/start']]);
  });

  it('events.session.* reads the new fields; an event without a session reads NULL', async () => {
    expect(
      await rows("select event, session.$entry_utm_source, session.$channel_type, session.$num_uniq_urls from events where event = 'custom' order by timestamp", fields),
    ).toEqual([
      ['custom', 'google', 'Paid Search', 3],
      ['custom', null, 'Unknown', 0],
      ['custom', null, null, null],
    ]);
  });

  it('an unknown sessions field is an error naming it', async () => {
    await expect(rows('select $entry_nope from sessions', fields)).rejects.toMatchObject({ status: 400 });
    await expect(rows('select session.$entry_nope from events', fields)).rejects.toThrow('Field not found: $entry_nope');
  });
});

describe('session properties of the v2 fields in insights (web analytics channel breakdowns)', () => {
  const RANGE = { date_from: '2024-01-10', date_to: '2024-01-10' };
  const trends = (q: Record<string, unknown>, project: number) => h.run(trendsRunner, { kind: 'TrendsQuery', dateRange: RANGE, ...q }, project);
  const PAGEVIEWS = { kind: 'EventsNode', event: '$pageview' };
  const totals = (r: any) => r.results.map((x: any) => [x.breakdown_value, x.aggregated_value]);

  it('breaks pageviews down by $channel_type', async () => {
    const r = await trends({ series: [PAGEVIEWS], breakdownFilter: { breakdown_type: 'session', breakdown: '$channel_type' }, trendsFilter: { display: 'ActionsTable' } }, fields);
    expect(totals(r)).toEqual([
      ['Paid Search', 3],
      ['Direct', 1],
      ['Organic Social', 1],
    ]);
  });

  it('filters on $channel_type and on $entry_utm_source; counts sessions by $entry_gclid is_set', async () => {
    const total = async (properties: unknown[], math?: string) =>
      (await trends({ series: [{ ...PAGEVIEWS, ...(math ? { math } : {}) }], properties, trendsFilter: { display: 'ActionsTable' } }, fields)).results[0].aggregated_value;
    expect(await total([{ type: 'session', key: '$channel_type', operator: 'exact', value: ['Direct', 'Organic Social'] }])).toBe(2);
    expect(await total([{ type: 'session', key: '$entry_utm_source', operator: 'exact', value: 'google' }])).toBe(3);
    expect(await total([{ type: 'session', key: '$entry_gclid', operator: 'is_set' }], 'unique_session')).toBe(1);
    expect(await total([{ type: 'session', key: '$entry_gclid', operator: 'is_not_set' }], 'unique_session')).toBe(2);
  });

  it('breaks down by $entry_utm_source; sessions without one are the null value', async () => {
    const r = await trends({ series: [PAGEVIEWS], breakdownFilter: { breakdown_type: 'session', breakdown: '$entry_utm_source' }, trendsFilter: { display: 'ActionsTable' } }, fields);
    expect(totals(r)).toEqual([
      ['google', 3],
      [BREAKDOWN_NULL, 2],
    ]);
  });

  it('$urls is a list: a filter or breakdown on it is a 400 pointing to $num_uniq_urls', async () => {
    const err = { status: 400, type: 'validation_error', message: expect.stringContaining('Session property "$urls" is a list') };
    await expect(trends({ series: [PAGEVIEWS], properties: [{ type: 'session', key: '$urls', operator: 'icontains', value: 'pricing' }] }, fields)).rejects.toMatchObject(err);
    await expect(trends({ series: [PAGEVIEWS], breakdownFilter: { breakdown_type: 'session', breakdown: '$urls' } }, fields)).rejects.toMatchObject(err);
    const r = await trends({ series: [PAGEVIEWS], properties: [{ type: 'session', key: '$num_uniq_urls', operator: 'gt', value: 1 }], trendsFilter: { display: 'ActionsTable' } }, fields);
    expect(r.results[0].aggregated_value).toBe(3);
  });

  it('an unknown session property is a 400 listing the new ones', async () => {
    await expect(trends({ series: [PAGEVIEWS], properties: [{ type: 'session', key: '$entry_utm_nope', operator: 'exact', value: 'x' }] }, fields)).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('$channel_type'),
    });
  });
});
