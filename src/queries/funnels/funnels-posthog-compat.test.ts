/**
 * FunnelsQuery scenarios ported from PostHog's own funnel test suites (posthog/hogql_queries/insights/funnels/test/:
 * test_funnel.py, test_funnel_strict.py, test_funnel_unordered.py, test_funnel_trends.py,
 * test_funnel_time_to_convert.py, test_breakdowns...). Each case names the PostHog test it follows; the expected
 * values are PostHog's. Runs through the real runner on a real engine (DuckDB, or ClickHouse via the .clickhouse twin).
 */
import { funnelsRunner } from '../runners/funnels-runner';
import { setInsightsClock } from '../insights/date-range';
import { counts, E, type Ev, ev, type Harness, openHarness, persons, PROPS_CHOSEN_JOURNEYS } from './testing';
import { entryReach, type FunnelConfig, type FunnelEvent } from './compute';

let h: Harness;
beforeAll(async () => {
  h = await openHarness();
});
afterAll(async () => {
  await h.close();
});


async function load(events: Ev[], people?: { distinct_ids: string[]; properties: Record<string, unknown> }[]) {
  const ids = [...new Set(events.map((e) => e.distinct_id))];
  const covered = new Set((people ?? []).flatMap((p) => p.distinct_ids));
  return h.load({ persons: [...(people ?? []), ...persons(...ids.filter((i) => !covered.has(i)))], events });
}
async function funnel(events: Ev[], q: Record<string, unknown>, project: Record<string, unknown> = {}, people?: any[]) {
  const pid = await load(events, people);
  return h.run(funnelsRunner, { kind: 'FunnelsQuery', ...q }, pid, project as any);
}
const byBreakdown = (r: any) => (r.results as any[][]).map((steps) => [steps[0].breakdown_value, steps.map((s) => s.count)]);

/** `journeys_for` with consecutive events a minute apart from a base time. */
function journey(who: string, events: string[], base = '2021-05-01T00:00:00Z'): Ev[] {
  const t0 = Date.parse(base);
  return events.map((e, i) => ev(who, e, new Date(t0 + i * 60_000).toISOString()));
}

describe('test_funnel.py (BaseTestFunnel)', () => {
  const SIGNUP = 'user signed up';
  const PAID = 'paid';
  const MOVIE = 'watched movie';

  it('test_funnel_events: a person with two distinct ids converts across them; wrong order and missing entry do not', async () => {
    const at = (h: number) => `2020-01-02T${String(h).padStart(2, '0')}:00:00Z`;
    const r = await funnel(
      [
        ev('stopped_after_signup1', SIGNUP, at(1)),
        ev('stopped_after_pay', SIGNUP, at(1)),
        ev('stopped_after_pay', PAID, at(2)),
        ev('had_anonymous_id', SIGNUP, at(1)),
        ev('completed_movie', PAID, at(2)),
        ev('just_did_movie', PAID, at(2)),
        ev('wrong_order', PAID, at(1)),
        ev('wrong_order', SIGNUP, at(2)),
      ],
      { series: [E(SIGNUP), E(PAID)], dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' } },
      {},
      [{ distinct_ids: ['had_anonymous_id', 'completed_movie'], properties: {} }],
    );
    expect(r.results.map((s: any) => [s.name, s.action_id, s.order, s.type, s.count])).toEqual([
      [SIGNUP, SIGNUP, 0, 'events', 4],
      [PAID, PAID, 1, 'events', 2],
    ]);
    // Exactly PostHog's step object keys (no people URLs in the HogQL runner).
    expect(Object.keys(r.results[0]).sort()).toEqual(
      ['action_id', 'average_conversion_time', 'count', 'custom_name', 'median_conversion_time', 'name', 'order', 'people', 'type'].sort(),
    );
    expect(r.results[0].people).toEqual([]);
    expect(r.results[0].custom_name).toBeNull();
  });

  it('merges after the fact: an anonymous id identified later counts as the same person', async () => {
    const r = await funnel(
      [
        ev('anon-1', SIGNUP, '2020-01-02T10:00:00Z'),
        ev('user-1', '$identify', '2020-01-02T10:30:00Z', { $anon_distinct_id: 'anon-1' }),
        ev('user-1', PAID, '2020-01-02T11:00:00Z'),
      ],
      { series: [E(SIGNUP), E(PAID)], dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' } },
      {},
      [{ distinct_ids: ['user-1'], properties: {} }],
    );
    expect(counts(r)).toEqual([1, 1]);
    expect(r.results[1].average_conversion_time).toBe(3600);
  });

  it('test_funnel_with_single_step', async () => {
    const r = await funnel(
      [ev('stopped_after_signup1', SIGNUP, '2020-01-02T10:00:00Z'), ev('stopped_after_signup2', SIGNUP, '2020-01-02T11:00:00Z')],
      { series: [E(SIGNUP)], dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' } },
    );
    expect(r.results).toHaveLength(1);
    expect(r.results[0]).toMatchObject({ name: SIGNUP, count: 2, order: 0, average_conversion_time: null, median_conversion_time: null });
  });

  it('test_funnel_skipped_step: step 3 without step 2 counts only at step 1', async () => {
    const r = await funnel([ev('wrong_order', SIGNUP, '2020-01-02T10:00:00Z'), ev('wrong_order', PAID, '2020-01-02T11:00:00Z')], {
      series: [E(SIGNUP), E(MOVIE), E(PAID)],
      dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' },
    });
    expect(counts(r)).toEqual([1, 0, 0]);
    expect(r.results[1].average_conversion_time).toBeNull();
    expect(r.results[2].median_conversion_time).toBeNull();
  });

  it('test_funnel_prop_filters: global event property filter', async () => {
    const r = await funnel(
      [
        ev('with_property', SIGNUP, '2020-01-02T10:00:00Z', { $browser: 'Safari' }),
        ev('with_property', PAID, '2020-01-02T11:00:00Z', { $browser: 'Safari' }),
        ev('without_property', SIGNUP, '2020-01-02T10:00:00Z'),
        ev('without_property', PAID, '2020-01-02T11:00:00Z'),
      ],
      {
        series: [E(SIGNUP), E(PAID)],
        dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' },
        properties: [{ type: 'event', key: '$browser', value: 'Safari' }],
      },
    );
    expect(counts(r)).toEqual([1, 1]);
  });

  it('test_funnel_with_matching_properties: step filters with different values per step', async () => {
    const r = await funnel(
      [
        ev('stopped_after_signup1', SIGNUP, '2020-01-02T10:00:00Z'),
        ev('stopped_after_pageview1', SIGNUP, '2020-01-02T10:00:00Z'),
        ev('stopped_after_pageview1', '$pageview', '2020-01-02T10:01:00Z', { $current_url: 'aloha.com' }),
        ev('stopped_after_pageview2', SIGNUP, '2020-01-02T10:00:00Z'),
        ev('stopped_after_pageview2', '$pageview', '2020-01-02T10:01:00Z', { $current_url: 'aloha.com' }),
        ev('stopped_after_pageview2', '$pageview', '2020-01-02T10:02:00Z', { $current_url: 'aloha2.com' }),
        ev('stopped_after_pageview3', SIGNUP, '2020-01-02T10:00:00Z'),
        ev('stopped_after_pageview3', '$pageview', '2020-01-02T10:01:00Z', { $current_url: 'aloha.com' }),
        ev('stopped_after_pageview3', '$pageview', '2020-01-02T10:02:00Z', { $current_url: 'aloha2.com' }),
        ev('stopped_after_pageview3', '$pageview', '2020-01-02T10:03:00Z', { $current_url: 'aloha.com' }),
        ev('stopped_after_pageview4', SIGNUP, '2020-01-02T10:00:00Z'),
        ev('stopped_after_pageview4', '$pageview', '2020-01-02T10:01:00Z', { $current_url: 'aloha.com' }),
        ev('stopped_after_pageview4', '$pageview', '2020-01-02T10:02:00Z', { $current_url: 'aloha2.com' }),
        ev('stopped_after_pageview4', '$pageview', '2020-01-02T10:03:00Z', { $current_url: 'aloha.com' }),
        ev('stopped_after_pageview4', '$pageview', '2020-01-02T10:04:00Z', { $current_url: 'aloha2.com' }),
      ],
      {
        series: [
          E(SIGNUP),
          E('$pageview', { properties: [{ key: '$current_url', value: 'aloha.com', type: 'event' }] }),
          E('$pageview', { properties: [{ key: '$current_url', value: 'aloha2.com', type: 'event' }] }),
          E('$pageview', { properties: [{ key: '$current_url', value: 'aloha.com', type: 'event' }] }),
          E('$pageview', { properties: [{ key: '$current_url', value: 'aloha2.com', type: 'event' }] }),
        ],
        dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' },
      },
    );
    expect(counts(r)).toEqual([5, 4, 3, 2, 1]);
  });

  it('test_funnel_with_any_event: steps on all events have name and action_id null', async () => {
    const r = await funnel(
      [
        ev('p1', SIGNUP, '2020-01-02T10:00:00Z'),
        ev('p1', PAID, '2020-01-02T10:01:00Z'),
        ev('p1', MOVIE, '2020-01-02T10:02:00Z'),
        ev('p2', SIGNUP, '2020-01-02T10:00:00Z'),
        ev('p2', PAID, '2020-01-02T10:01:00Z'),
        ev('p3', SIGNUP, '2020-01-02T10:00:00Z'),
      ],
      { series: [E(null), E(null), E(null)], dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' } },
    );
    expect(r.results.map((s: any) => [s.name, s.action_id, s.type, s.count])).toEqual([
      [null, null, 'events', 3],
      [null, null, 'events', 2],
      [null, null, 'events', 1],
    ]);
  });

  it('custom_name is passed through per step', async () => {
    const r = await funnel([ev('p1', SIGNUP, '2020-01-02T10:00:00Z')], {
      series: [E(SIGNUP, { custom_name: 'Signed up' }), E(PAID)],
      dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' },
    });
    expect(r.results.map((s: any) => s.custom_name)).toEqual(['Signed up', null]);
  });

  // (funnel_conversion_time_test_factory runs for the ordered, strict and unordered classes alike)
  it.each(['ordered', 'strict', 'unordered'])('test_funnel_step_conversion_times (%s): average and median per step in seconds', async (funnelOrderType) => {
    const r = await funnel(
      [
        ev('person1', 'sign up', '2020-01-01T12:00:00Z'),
        ev('person1', 'play movie', '2020-01-01T13:00:00Z'),
        ev('person1', 'buy', '2020-01-01T15:00:00Z'),
        ev('person2', 'sign up', '2020-01-02T14:00:00Z'),
        ev('person2', 'play movie', '2020-01-02T16:00:00Z'),
        ev('person3', 'sign up', '2020-01-02T14:00:00Z'),
        ev('person3', 'play movie', '2020-01-02T16:00:00Z'),
        ev('person3', 'buy', '2020-01-02T17:00:00Z'),
      ],
      {
        series: [E('sign up'), E('play movie'), E('buy')],
        dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' },
        funnelsFilter: { funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day', funnelOrderType },
      },
    );
    expect(r.results.map((s: any) => [s.count, s.average_conversion_time, s.median_conversion_time])).toEqual([
      [3, null, null],
      [3, 6000, 7200],
      [2, 5400, 5400],
    ]);
  });

  describe('test_funnel_conversion_window / _seconds', () => {
    it('7 days: users converting after 9 days drop at step 2', async () => {
      const events: Ev[] = [];
      for (let i = 0; i < 10; i++)
        events.push(ev(`user_${i}`, 'step one', '2021-05-01T00:00:00Z'), ev(`user_${i}`, 'step two', '2021-05-02T00:00:00Z'));
      for (let i = 10; i < 25; i++)
        events.push(ev(`user_${i}`, 'step one', '2021-05-01T00:00:00Z'), ev(`user_${i}`, 'step two', '2021-05-10T00:00:00Z'));
      const r = await funnel(events, {
        series: [E('step one'), E('step two'), E('step three')],
        interval: 'day',
        dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-14 00:00:00' },
        funnelsFilter: { funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day' },
      });
      expect(counts(r)).toEqual([25, 10, 0]);
    });

    it('15 seconds', async () => {
      const events: Ev[] = [];
      for (let i = 0; i < 10; i++)
        events.push(ev(`user_${i}`, 'step one', '2021-05-01T00:00:00Z'), ev(`user_${i}`, 'step two', '2021-05-01T00:00:10Z'));
      for (let i = 10; i < 25; i++)
        events.push(ev(`user_${i}`, 'step one', '2021-05-01T00:00:00Z'), ev(`user_${i}`, 'step two', '2021-05-01T00:00:20Z'));
      const r = await funnel(events, {
        series: [E('step one'), E('step two'), E('step three')],
        dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-14 00:00:00' },
        funnelsFilter: { funnelWindowInterval: 15, funnelWindowIntervalUnit: 'second' },
      });
      expect(counts(r)).toEqual([25, 10, 0]);
      expect(r.results[1].average_conversion_time).toBe(10);
    });

    it.each([
      ['minute', 2, '2021-05-01T00:02:00Z', 1],
      ['minute', 2, '2021-05-01T00:02:01Z', 0],
      ['hour', 2, '2021-05-01T02:00:00Z', 1],
      ['week', 1, '2021-05-08T00:00:00Z', 1],
      ['week', 1, '2021-05-08T00:00:01Z', 0],
      ['month', 1, '2021-05-31T23:59:59Z', 1],
      // one month is 31 days (UDF window in seconds)
      ['month', 1, '2021-06-01T00:00:00Z', 1],
      ['month', 1, '2021-06-01T00:00:01Z', 0],
      // default: 14 days
      [null, null, '2021-05-15T00:00:00Z', 1],
      [null, null, '2021-05-15T00:00:01Z', 0],
    ])('window %s x %s: step two at %s → %d', async (unit, n, at, converted) => {
      const r = await funnel([ev('u', 'step one', '2021-05-01T00:00:00Z'), ev('u', 'step two', at)], {
        series: [E('step one'), E('step two')],
        dateRange: { date_from: '2021-05-01', date_to: '2021-06-30' },
        funnelsFilter: unit ? { funnelWindowInterval: n, funnelWindowIntervalUnit: unit } : {},
      });
      expect(counts(r)).toEqual([1, converted]);
    });
  });

  it('test_funnel_step_repeated_action: three steps of the same event need three events', async () => {
    const r = await funnel(
      [
        ...journey('one', ['$pageview']),
        ...journey('two', ['$pageview', '$pageview']),
        ...journey('three', ['$pageview', '$pageview', '$pageview']),
        ...journey('four', ['$pageview', '$pageview', '$pageview', '$pageview']),
      ],
      { series: [E('$pageview'), E('$pageview'), E('$pageview')], dateRange: { date_from: '2021-05-01', date_to: '2021-05-07' } },
    );
    expect(counts(r)).toEqual([4, 3, 2]);
    expect(r.results[1].average_conversion_time).toBe(60);
  });

  describe('date range bounds (§1.5, §3.3)', () => {
    const q = (dateRange: Record<string, unknown>, interval = 'day') => ({ series: [E('step one'), E('step two')], dateRange, interval });

    it('an absolute date_to with a time still includes the rest of that day (day interval)', async () => {
      const r = await funnel(
        [ev('u', 'step one', '2021-05-14T10:00:00Z'), ev('u', 'step two', '2021-05-14T23:59:59Z')],
        q({ date_from: '2021-05-01 00:00:00', date_to: '2021-05-14 00:00:00' }),
      );
      expect(counts(r)).toEqual([1, 1]);
      expect(r.resolved_date_range).toEqual({ date_from: '2021-05-01T00:00:00Z', date_to: '2021-05-14T23:59:59.999999Z' });
    });

    it('events before date_from do not enter the funnel', async () => {
      const r = await funnel(
        [ev('u', 'step one', '2021-04-30T23:59:59Z'), ev('u', 'step two', '2021-05-01T00:00:00Z'), ev('v', 'step one', '2021-05-01T00:00:00Z')],
        q({ date_from: '2021-05-01', date_to: '2021-05-07' }),
      );
      expect(counts(r)).toEqual([1, 0]);
    });

    it('project timezone: the range is local days', async () => {
      // 2021-05-01T03:00Z is 2021-04-30 20:00 in US/Pacific (outside); 2021-05-08T03:00Z is 2021-05-07 20:00 (inside).
      const r = await funnel(
        [
          ev('early', 'step one', '2021-05-01T03:00:00Z'),
          ev('early', 'step two', '2021-05-01T04:00:00Z'),
          ev('late', 'step one', '2021-05-08T03:00:00Z'),
          ev('late', 'step two', '2021-05-08T06:59:59Z'),
        ],
        q({ date_from: '2021-05-01', date_to: '2021-05-07' }),
        { timezone: 'US/Pacific' },
      );
      expect(counts(r)).toEqual([1, 1]);
      expect(r.resolved_date_range).toEqual({ date_from: '2021-05-01T00:00:00-07:00', date_to: '2021-05-07T23:59:59.999999-07:00' });
    });

    it('relative -7d under a frozen clock: start of that day to the end of today', async () => {
      const restore = setInsightsClock(new Date('2021-05-10T12:00:00Z'));
      try {
        const r = await funnel(
          [
            ev('too_early', 'step one', '2021-05-02T23:59:59Z'),
            ev('first_day', 'step one', '2021-05-03T00:00:00Z'),
            ev('first_day', 'step two', '2021-05-03T00:00:01Z'),
            ev('later_today', 'step one', '2021-05-10T23:00:00Z'),
          ],
          q({ date_from: '-7d' }),
        );
        expect(counts(r)).toEqual([2, 1]);
      } finally {
        restore();
      }
    });
  });

  describe('exclusions (test_advanced_funnel_exclusions_between_steps)', () => {
    const steps = ['user signed up', '$pageview', 'insight viewed', 'invite teammate', 'pageview2'];
    const at = (hh: string) => `2021-05-01T${hh}:00Z`;
    // person1: x between steps 1 and 2, 2 and 3, 3 and 4; person2: between 2-3 and 3-4; person3: between 3-4 only;
    // person4: x before the funnel and after it (never excluded); person5: x between steps 0 and 1.
    const full = (who: string, xs: string[]) =>
      [
        ev(who, steps[0], at('01:00')),
        ev(who, steps[1], at('02:00')),
        ev(who, steps[2], at('04:00')),
        ev(who, steps[3], at('05:00')),
        ev(who, steps[4], at('06:00')),
        ...xs.map((t) => ev(who, 'x', at(t))),
      ] as Ev[];
    const events = [
      ...full('person1', ['03:00', '04:30', '05:30']),
      ...full('person2', ['04:30', '05:30']),
      ...full('person3', ['05:30']),
      ...full('person4', ['00:30', '06:30']),
      ...full('person5', ['01:30']),
    ];
    it.each([
      [0, 1, [4, 4, 4, 4, 4]],
      [1, 2, [4, 4, 4, 4, 4]],
      [2, 3, [3, 3, 3, 3, 3]],
      [3, 4, [2, 2, 2, 2, 2]],
      [0, 4, [1, 1, 1, 1, 1]],
    ])('exclusion from step %d to %d', async (from, to, expected) => {
      const r = await funnel(events, {
        series: steps.map((s) => E(s)),
        dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-14 00:00:00' },
        funnelsFilter: { exclusions: [{ kind: 'EventsNode', event: 'x', funnelFromStep: from, funnelToStep: to }] },
      });
      expect(counts(r)).toEqual(expected);
    });

    it('test_funnel_exclusion_no_end_event: an excluded actor who never reaches the end is dropped; all excluded → []', async () => {
      const r = await funnel(
        [ev('p1', 'user signed up', at('01:00')), ev('p1', 'x', at('02:00')), ev('p2', 'user signed up', at('01:00')), ev('p2', 'paid', at('03:00'))],
        {
          series: [E('user signed up'), E('paid')],
          dateRange: { date_from: '2021-05-01', date_to: '2021-05-14' },
          funnelsFilter: { exclusions: [{ kind: 'EventsNode', event: 'x', funnelFromStep: 0, funnelToStep: 1 }] },
        },
      );
      expect(counts(r)).toEqual([1, 1]);
      const none = await funnel([ev('p1', 'user signed up', at('01:00')), ev('p1', 'x', at('02:00'))], {
        series: [E('user signed up'), E('paid')],
        dateRange: { date_from: '2021-05-01', date_to: '2021-05-14' },
        funnelsFilter: { exclusions: [{ kind: 'EventsNode', event: 'x', funnelFromStep: 0, funnelToStep: 1 }] },
      });
      expect(none.results).toEqual([]);
    });

    it('exclusion with property filters only excludes matching events', async () => {
      const r = await funnel(
        [
          ev('p1', 'user signed up', at('01:00')),
          ev('p1', 'x', at('01:30'), { bad: 'yes' }),
          ev('p1', 'paid', at('02:00')),
          ev('p2', 'user signed up', at('01:00')),
          ev('p2', 'x', at('01:30'), { bad: 'no' }),
          ev('p2', 'paid', at('02:00')),
        ],
        {
          series: [E('user signed up'), E('paid')],
          dateRange: { date_from: '2021-05-01', date_to: '2021-05-14' },
          funnelsFilter: {
            exclusions: [
              { kind: 'EventsNode', event: 'x', properties: [{ type: 'event', key: 'bad', value: 'yes', operator: 'exact' }], funnelFromStep: 0, funnelToStep: 1 },
            ],
          },
        },
      );
      expect(counts(r)).toEqual([1, 1]);
    });
  });

  describe('breakdowns', () => {
    const journeyEvents = [
      ev('person1', 'sign up', '2020-01-01T12:00:00Z', { key: 'val', $browser: 'Chrome' }),
      ev('person1', 'play movie', '2020-01-01T13:00:00Z', { key: 'val', $browser: 'Chrome' }),
      ev('person1', 'buy', '2020-01-01T15:00:00Z', { key: 'val', $browser: 'Chrome' }),
      ev('person2', 'sign up', '2020-01-02T14:00:00Z', { key: 'val', $browser: 'Safari' }),
      ev('person2', 'play movie', '2020-01-02T16:00:00Z', { key: 'val', $browser: 'Safari' }),
      ev('person3', 'sign up', '2020-01-02T14:00:00Z', { key: 'val', $browser: 'Safari' }),
    ];
    const base = {
      series: [E('sign up'), E('play movie'), E('buy')],
      dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' },
      funnelsFilter: { funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day' },
    };

    it.each([
      ['a string', '$browser'],
      ['a one-element list', ['$browser']],
    ])('test_funnel_step_breakdown_event with breakdown as %s', async (_n, breakdown) => {
      const r = await funnel(journeyEvents, { ...base, breakdownFilter: { breakdown_type: 'event', breakdown } });
      expect(r.results).toHaveLength(2);
      expect(r.results[0].map((s: any) => [s.name, s.breakdown, s.breakdown_value, s.count, s.average_conversion_time, s.median_conversion_time])).toEqual([
        ['sign up', ['Chrome'], ['Chrome'], 1, null, null],
        ['play movie', ['Chrome'], ['Chrome'], 1, 3600, 3600],
        ['buy', ['Chrome'], ['Chrome'], 1, 7200, 7200],
      ]);
      expect(r.results[1].map((s: any) => [s.name, s.breakdown_value, s.count, s.average_conversion_time, s.median_conversion_time])).toEqual([
        ['sign up', ['Safari'], 2, null, null],
        ['play movie', ['Safari'], 1, 7200, 7200],
        ['buy', ['Safari'], 0, null, null],
      ]);
    });

    it('test_funnel_step_breakdown_person', async () => {
      const r = await funnel(
        journeyEvents.map((e) => ({ ...e, properties: { key: 'val' } })),
        { ...base, breakdownFilter: { breakdown_type: 'person', breakdown: '$browser' } },
        {},
        [
          { distinct_ids: ['person1'], properties: { $browser: 'Chrome' } },
          { distinct_ids: ['person2'], properties: { $browser: 'Safari' } },
          { distinct_ids: ['person3'], properties: { $browser: 'Safari' } },
        ],
      );
      expect(byBreakdown(r)).toEqual([
        [['Chrome'], [1, 1, 1]],
        [['Safari'], [2, 1, 0]],
      ]);
    });

    it('multi-property breakdown: values boxed in order, missing ones as ""', async () => {
      const r = await funnel(
        [
          ev('p1', 'sign up', '2020-01-01T12:00:00Z', { $browser: 'Chrome', $version: 'xyz' }),
          ev('p1', 'play movie', '2020-01-01T13:00:00Z'),
          ev('p2', 'sign up', '2020-01-01T12:00:00Z', { $browser: 'Safari' }),
        ],
        { ...base, breakdownFilter: { breakdown_type: 'event', breakdown: ['$browser', '$version'] } },
      );
      expect(byBreakdown(r)).toEqual([
        [['Chrome', 'xyz'], [1, 1, 0]],
        [['Safari', ''], [1, 0, 0]],
      ]);
    });

    it('test_funnel_step_breakdown_limit: top N by conversion, the rest as ["Other"]', async () => {
      const events: Ev[] = [];
      for (let num = 0; num < 10; num++)
        for (let i = 0; i < num; i++)
          for (const [e, hh] of [
            ['sign up', '12'],
            ['play movie', '13'],
            ['buy', '15'],
          ])
            events.push(ev(`person_${num}_${i}`, e, `2020-01-01T${hh}:00:00Z`, { some_breakdown_val: String(num) }));
      const r = await funnel(events, { ...base, breakdownFilter: { breakdown_type: 'event', breakdown: ['some_breakdown_val'], breakdown_limit: 5 } });
      expect(r.results.map((s: any[]) => s[0].breakdown_value[0]).sort()).toEqual(['5', '6', '7', '8', '9', 'Other']);
      const other = r.results.find((s: any[]) => s[0].breakdown_value[0] === 'Other');
      expect(other.map((s: any) => s.count)).toEqual([10, 10, 10]);
      expect(other[0].breakdown).toEqual(['Other']);
    });

    it('numeric breakdown values are strings', async () => {
      const r = await funnel([ev('p1', 'sign up', '2020-01-01T12:00:00Z', { n: 5 })], { ...base, breakdownFilter: { breakdown: 'n' } });
      expect(byBreakdown(r)).toEqual([[['5'], [1, 0, 0]]]);
    });

    // person1's buy is discarded at step 1 because it doesn't meet the step filter
    const propsChosen = [...PROPS_CHOSEN_JOURNEYS];
    const propsQuery = (attribution: Record<string, unknown>) => ({
      series: [E('sign up'), E('buy', { properties: [{ type: 'event', key: '$version', value: 'xyz' }] })],
      dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' },
      funnelsFilter: { funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day', ...attribution },
      breakdownFilter: { breakdown_type: 'event', breakdown: '$browser' },
    });

    it('test_funnel_breakdown_correct_breakdown_props_are_chosen (first_touch skips empty values)', async () => {
      const r = await funnel(
        [...propsChosen, ev('person4', 'sign up', '2020-01-02T15:00:00Z'), ev('person4', 'buy', '2020-01-02T16:00:00Z')],
        propsQuery({ breakdownAttributionType: 'first_touch' }),
      );
      expect(byBreakdown(r).sort()).toEqual(
        [
          [['Chrome'], [1, 0]],
          [['Safari'], [1, 1]],
          [['Mac'], [1, 1]],
          [[''], [1, 0]],
        ].sort(),
      );
    });

    it('test_funnel_breakdown_correct_breakdown_props_are_chosen_for_step', async () => {
      const r = await funnel(propsChosen, propsQuery({ breakdownAttributionType: 'step', breakdownAttributionValue: 1 }));
      expect(byBreakdown(r).sort()).toEqual(
        [
          [[''], [1, 0]],
          [['Safari'], [1, 1]],
          [['Mac'], [1, 1]],
        ].sort(),
      );
    });

    it('an empty funnel with a breakdown returns []', async () => {
      const r = await funnel([ev('p1', 'buy', '2020-01-01T12:00:00Z', { $browser: 'Chrome' })], { ...base, breakdownFilter: { breakdown: '$browser' } });
      expect(r.results).toEqual([]);
    });
  });

  it('test_funnel_aggregation_with_groups: actors are $group_0 values, events without one are left out', async () => {
    const r = await funnel(
      [
        ev('user_1', 'user signed up', '2020-01-02T14:00:00Z', { $group_0: 'org:5' }),
        ev('user_1', 'user signed up', '2020-01-02T14:00:00Z', { $group_0: 'org:6' }),
        ev('user_1', 'user signed up', '2020-01-02T14:00:00Z'),
        ev('user_2', 'paid', '2020-01-03T14:00:00Z', { $group_0: 'org:5' }),
        ev('user_2', 'paid', '2020-01-03T14:00:00Z'),
      ],
      { series: [E('user signed up'), E('paid')], dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' }, aggregation_group_type_index: 0 },
    );
    expect(counts(r)).toEqual([2, 1]);
    expect(r.results[1].average_conversion_time).toBe(86400);
  });
});

describe('test_funnel_strict.py', () => {
  it('test_basic_strict_funnel: any other event in between breaks the sequence', async () => {
    const S = 'user signed up';
    const P = '$pageview';
    const I = 'insight viewed';
    const B = 'blaah blaa';
    const r = await funnel(
      [
        ...journey('stopped_after_signup1', [S]),
        ...journey('stopped_after_pageview1', [S, P]),
        ...journey('stopped_after_insightview', [S, P, B, I]),
        ...journey('stopped_after_insightview2', [I, B, P, S]),
        ...journey('stopped_after_insightview3', [P, S, B, P, I]),
        ...journey('person6', [B, S, B, P]),
        ...journey('person7', [B, S, P, I, B]),
        ...journey('stopped_after_insightview6', [I, P]),
      ],
      {
        series: [E(S), E(P), E(I)],
        dateRange: { date_from: '2021-05-01', date_to: '2021-05-07' },
        funnelsFilter: { funnelOrderType: 'strict' },
      },
    );
    expect(r.results.map((s: any) => [s.name, s.action_id, s.count])).toEqual([
      [S, S, 7],
      [P, P, 3],
      [I, I, 1],
    ]);
  });

  it('strict: a repeated step event keeps the step reached (UDF clears only the steps the event does not match)', async () => {
    const r = await funnel(journey('u', ['user signed up', '$pageview', '$pageview', 'insight viewed']), {
      series: [E('user signed up'), E('$pageview'), E('insight viewed')],
      dateRange: { date_from: '2021-05-01', date_to: '2021-05-07' },
      funnelsFilter: { funnelOrderType: 'strict' },
    });
    expect(counts(r)).toEqual([1, 1, 1]);
  });
});

describe('test_funnel_unordered.py', () => {
  it('test_basic_unordered_funnel: "Completed N steps", any order inside the window', async () => {
    const S = 'user signed up';
    const P = '$pageview';
    const I = 'insight viewed';
    const r = await funnel(
      [
        ...journey('stopped_after_signup1', [S]),
        ...journey('stopped_after_pageview1', [P]),
        ...journey('stopped_after_pageview2', [S, P]),
        ...journey('stopped_after_insightview', [S, P, I]),
        ...journey('stopped_after_insightview2', [I, P]),
        ...journey('stopped_after_insightview3', [P, S, I]),
        ...journey('stopped_after_insightview4', [I, P, S]),
      ],
      {
        series: [E(S), E(P), E(I)],
        dateRange: { date_from: '2021-05-01', date_to: '2021-05-07' },
        funnelsFilter: { funnelOrderType: 'unordered' },
      },
    );
    expect(r.results.map((s: any) => [s.name, s.action_id, s.custom_name, s.order, s.count])).toEqual([
      ['Completed 1 step', null, null, 0, 7],
      ['Completed 2 steps', null, null, 1, 5],
      ['Completed 3 steps', null, null, 2, 3],
    ]);
  });
});

describe('test_funnel_trends.py', () => {
  const steps = { series: [E('step one'), E('step two'), E('step three')] };
  const trends = (dateRange: Record<string, unknown>, interval = 'day', extra: Record<string, unknown> = {}) => ({
    ...steps,
    interval,
    dateRange,
    funnelsFilter: { funnelVizType: 'trends', funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day', ...extra },
  });

  it('test_no_event_in_period: zero-filled periods, not []', async () => {
    const r = await funnel([ev('user a', 'step one', '2021-06-06T21:00:00Z')], trends({ date_from: '2021-06-07 00:00:00', date_to: '2021-06-13 23:59:59' }));
    expect(r.results).toHaveLength(1);
    expect(r.results[0]).toEqual({
      count: 7,
      data: [0, 0, 0, 0, 0, 0, 0],
      days: ['2021-06-07', '2021-06-08', '2021-06-09', '2021-06-10', '2021-06-11', '2021-06-12', '2021-06-13'],
      labels: ['7-Jun-2021', '8-Jun-2021', '9-Jun-2021', '10-Jun-2021', '11-Jun-2021', '12-Jun-2021', '13-Jun-2021'],
    });
  });

  it('test_only_one_user_reached_one_step', async () => {
    const r = await funnel([ev('user a', 'step one', '2021-05-01T00:00:00Z')], trends({ date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 23:59:59' }));
    expect(r.results).toEqual([
      {
        count: 7,
        data: [0, 0, 0, 0, 0, 0, 0],
        days: ['2021-05-01', '2021-05-02', '2021-05-03', '2021-05-04', '2021-05-05', '2021-05-06', '2021-05-07'],
        labels: ['1-May-2021', '2-May-2021', '3-May-2021', '4-May-2021', '5-May-2021', '6-May-2021', '7-May-2021'],
      },
    ]);
  });

  it('test_all_results_for_day_interval: rates per entrance day, rounded to 2 dp', async () => {
    const full = (who: string, day: string) => [
      ev(who, 'step one', `2021-05-${day}T00:00:00Z`),
      ev(who, 'step two', `2021-05-${day}T01:00:00Z`),
      ev(who, 'step three', `2021-05-${day}T02:00:00Z`),
    ];
    const r = await funnel(
      [
        ...full('user_one', '01'),
        ...full('user_two', '02'),
        ev('user_three', 'step one', '2021-05-02T00:00:00Z'),
        ev('user_four', 'step one', '2021-05-02T00:00:00Z'),
        ev('user_four', 'step two', '2021-05-02T01:00:00Z'),
        ...full('user_five', '03'),
        ev('user_six', 'step one', '2021-05-03T00:00:00Z'),
        ev('user_seven', 'step one', '2021-05-03T00:00:00Z'),
      ],
      trends({ date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 23:59:59' }),
    );
    expect(r.results[0].data).toEqual([100, 33.33, 33.33, 0, 0, 0, 0]);
  });

  it('funnelFromStep/funnelToStep pick the steps whose conversion is measured', async () => {
    const r = await funnel(
      [
        ev('a', 'step one', '2021-05-01T00:00:00Z'),
        ev('a', 'step two', '2021-05-01T01:00:00Z'),
        ev('b', 'step one', '2021-05-01T00:00:00Z'),
        ev('b', 'step two', '2021-05-01T01:00:00Z'),
        ev('b', 'step three', '2021-05-01T02:00:00Z'),
        ev('c', 'step one', '2021-05-01T00:00:00Z'),
      ],
      trends({ date_from: '2021-05-01', date_to: '2021-05-02' }, 'day', { funnelFromStep: 1, funnelToStep: 2 }),
    );
    expect(r.results[0].data).toEqual([50, 0]);
  });

  it('week interval: days are week starts, labels are %-d-%b-%Y of the period start', async () => {
    const r = await funnel(
      [ev('user_one', 'step one', '2021-05-01T00:00:00Z'), ev('user_one', 'step two', '2021-05-03T00:00:00Z'), ev('user_one', 'step three', '2021-05-05T00:00:00Z')],
      trends({ date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 00:00:00' }, 'week'),
    );
    expect(r.results).toEqual([{ count: 2, data: [100, 0], days: ['2021-04-25', '2021-05-02'], labels: ['25-Apr-2021', '2-May-2021'] }]);
  });

  it('month interval: labels are the day of the period start', async () => {
    const r = await funnel(
      [ev('user_one', 'step one', '2021-05-01T00:00:00Z'), ev('user_one', 'step two', '2021-05-03T00:00:00Z'), ev('user_one', 'step three', '2021-05-05T00:00:00Z')],
      trends({ date_from: '2021-04-15', date_to: '2021-05-20' }, 'month'),
    );
    expect(r.results).toEqual([{ count: 2, data: [0, 100], days: ['2021-04-01', '2021-05-01'], labels: ['1-Apr-2021', '1-May-2021'] }]);
  });

  it('hour interval: days carry the time, labels stay dates', async () => {
    const r = await funnel(
      [ev('user_one', 'step one', '2021-05-01T01:10:00Z'), ev('user_one', 'step two', '2021-05-01T01:20:00Z'), ev('user_one', 'step three', '2021-05-01T01:30:00Z')],
      trends({ date_from: '2021-05-01 00:00:00', date_to: '2021-05-01 02:00:00' }, 'hour'),
    );
    expect(r.results).toEqual([
      {
        count: 3,
        data: [0, 100, 0],
        days: ['2021-05-01 00:00:00', '2021-05-01 01:00:00', '2021-05-01 02:00:00'],
        labels: ['1-May-2021', '1-May-2021', '1-May-2021'],
      },
    ]);
  });

  it('timezone: entrance periods are local days', async () => {
    // 2021-05-02T02:00Z is 2021-05-01 19:00 in US/Pacific.
    const r = await funnel(
      [ev('u', 'step one', '2021-05-02T02:00:00Z'), ev('u', 'step two', '2021-05-02T03:00:00Z'), ev('u', 'step three', '2021-05-02T04:00:00Z')],
      trends({ date_from: '2021-05-01', date_to: '2021-05-03' }),
      { timezone: 'US/Pacific' },
    );
    expect(r.results[0].data).toEqual([100, 0, 0]);
    expect(r.results[0].days).toEqual(['2021-05-01', '2021-05-02', '2021-05-03']);
  });

  it('breakdown: one series per value, sorted by breakdown value (not by conversion), each boxed', async () => {
    const r = await funnel(
      [
        ev('a', 'step one', '2021-05-01T00:00:00Z', { $browser: 'Safari' }),
        ev('a', 'step two', '2021-05-01T00:10:00Z', { $browser: 'Safari' }),
        ev('a', 'step three', '2021-05-01T00:20:00Z', { $browser: 'Safari' }),
        ev('a2', 'step one', '2021-05-01T00:00:00Z', { $browser: 'Safari' }),
        ev('a2', 'step two', '2021-05-01T00:10:00Z', { $browser: 'Safari' }),
        ev('a2', 'step three', '2021-05-01T00:20:00Z', { $browser: 'Safari' }),
        ev('b', 'step one', '2021-05-01T00:00:00Z', { $browser: 'Chrome' }),
        ev('c', 'step one', '2021-05-02T00:00:00Z', { $browser: 'Chrome' }),
        ev('c', 'step two', '2021-05-02T00:10:00Z'),
        ev('c', 'step three', '2021-05-02T00:20:00Z'),
      ],
      { ...trends({ date_from: '2021-05-01', date_to: '2021-05-02' }), breakdownFilter: { breakdown_type: 'event', breakdown: '$browser' } },
    );
    expect(r.results).toEqual([
      { count: 2, data: [0, 100], days: ['2021-05-01', '2021-05-02'], labels: ['1-May-2021', '2-May-2021'], breakdown_value: ['Chrome'] },
      { count: 2, data: [100, 0], days: ['2021-05-01', '2021-05-02'], labels: ['1-May-2021', '2-May-2021'], breakdown_value: ['Safari'] },
    ]);
  });
});

describe('test_funnel_time_to_convert.py', () => {
  const events = [
    ev('user a', 'step one', '2021-06-08T18:00:00Z'),
    ev('user a', 'step two', '2021-06-08T19:00:00Z'),
    ev('user a', 'step three', '2021-06-08T21:00:00Z'),
    ev('user b', 'step one', '2021-06-09T13:00:00Z'),
    ev('user b', 'step two', '2021-06-09T13:37:00Z'),
    ev('user c', 'step one', '2021-06-11T07:00:00Z'),
    ev('user c', 'step two', '2021-06-12T06:00:00Z'),
  ];
  const q = (ff: Record<string, unknown>) => ({
    series: [E('step one'), E('step two'), E('step three')],
    interval: 'day',
    dateRange: { date_from: '2021-06-07 00:00:00', date_to: '2021-06-13 23:59:59' },
    funnelsFilter: { funnelVizType: 'time_to_convert', funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day', ...ff },
  });

  it('test_custom_bin_count_single_step', async () => {
    const r = await funnel(events, q({ funnelToStep: 1, binCount: 7 }));
    expect(r.results.bins).toEqual([
      [2220, 2],
      [13732, 0],
      [25244, 0],
      [36756, 0],
      [48268, 0],
      [59780, 0],
      [71292, 1],
      [82804, 0],
    ]);
    expect(r.results.average_conversion_time).toBe(29540);
  });

  it('conversion time summed over funnelFromStep..funnelToStep', async () => {
    const r = await funnel(events, q({ funnelFromStep: 0, funnelToStep: 2, binCount: 1 }));
    // only user a reaches step three: 10800 s; one sample → bin width 60
    expect(r.results.bins).toEqual([
      [10800, 1],
      [10860, 0],
    ]);
    expect(r.results.average_conversion_time).toBe(10800);
  });
});

describe('more request shapes', () => {
  const range = { date_from: '2020-01-01', date_to: '2020-01-14' };
  const two = [E('sign up'), E('buy')];
  const basic = [
    ev('p1', 'sign up', '2020-01-02T10:00:00Z', { $browser: 'Chrome', $os: 'Mac', $session_id: 's1' }),
    ev('p1', 'buy', '2020-01-02T11:00:00Z', { $browser: 'Chrome', $os: 'Mac', $session_id: 's2' }),
    ev('p2', 'sign up', '2020-01-03T10:00:00Z', { $browser: 'Safari', $os: 'iOS', $session_id: 's3' }),
    ev('p2', 'buy', '2020-01-03T10:30:00Z', { $browser: 'Safari', $os: 'iOS', $session_id: 's3' }),
    ev('p3', 'sign up', '2020-01-03T10:00:00Z', { $browser: 'Safari', $os: 'iOS' }),
  ];

  it('date_from "all" starts at the project\'s earliest event (§1.5), not today', async () => {
    const r = await funnel([ev('someone', 'other event', '2019-12-30T08:00:00Z'), ...basic], { series: two, dateRange: { date_from: 'all' } });
    expect(counts(r)).toEqual([3, 2]);
    expect(r.resolved_date_range.date_from).toBe('2019-12-30T00:00:00Z');
  });

  it('hogql breakdowns are boxed like event breakdowns', async () => {
    const r = await funnel(basic, { series: two, dateRange: range, breakdownFilter: { breakdown_type: 'hogql', breakdown: 'properties.$browser' } });
    // ties on the last step are ordered by the previous steps, descending
    expect(byBreakdown(r)).toEqual([
      [['Safari'], [2, 1]],
      [['Chrome'], [1, 1]],
    ]);
  });

  it('breakdowns (multi) give one boxed array per combination', async () => {
    const r = await funnel(basic, {
      series: two,
      dateRange: range,
      breakdownFilter: { breakdowns: [{ type: 'event', property: '$browser' }, { type: 'event', property: '$os' }] },
    });
    expect(byBreakdown(r)).toEqual([
      [['Safari', 'iOS'], [2, 1]],
      [['Chrome', 'Mac'], [1, 1]],
    ]);
  });

  it('a person-property filter on a step', async () => {
    const r = await funnel(
      basic,
      { series: [E('sign up'), E('buy', { properties: [{ type: 'person', key: 'plan', value: 'pro', operator: 'exact' }] })], dateRange: range },
      {},
      [
        { distinct_ids: ['p1'], properties: { plan: 'pro' } },
        { distinct_ids: ['p2'], properties: { plan: 'free' } },
      ],
    );
    expect(counts(r)).toEqual([3, 1]);
  });

  it('funnelAggregateByHogQL: sessions are the actors; events without one are left out', async () => {
    const r = await funnel(basic, { series: two, dateRange: range, funnelsFilter: { funnelAggregateByHogQL: 'properties.$session_id' } });
    // s1 signs up (no buy in s1), s3 signs up and buys, s2 only buys; p3's event has no session.
    expect(counts(r)).toEqual([2, 1]);
  });

  it('filterTestAccounts applies the project test account filters', async () => {
    const r = await funnel(basic, { series: two, dateRange: range, filterTestAccounts: true }, {
      test_account_filters: [{ type: 'event', key: '$browser', value: 'Safari', operator: 'is_not' }],
    });
    expect(counts(r)).toEqual([1, 1]);
  });

  it('unordered conversion times are between consecutive completed steps', async () => {
    const r = await funnel(
      [
        ev('a', 'buy', '2020-01-02T10:00:00Z'),
        ev('a', 'sign up', '2020-01-02T10:10:00Z'),
        ev('b', 'sign up', '2020-01-02T10:00:00Z'),
        ev('b', 'buy', '2020-01-02T10:30:00Z'),
      ],
      { series: two, dateRange: range, funnelsFilter: { funnelOrderType: 'unordered' } },
    );
    expect(r.results.map((s: any) => [s.count, s.average_conversion_time, s.median_conversion_time])).toEqual([
      [2, null, null],
      [2, 1200, 1200],
    ]);
  });
});

describe('funnel trends on the per-actor path (an exclusion that never happens forces it)', () => {
  const noop = { exclusions: [{ kind: 'EventsNode', event: 'never happens', funnelFromStep: 0, funnelToStep: 1 }] };
  it.each([
    ['SQL path', {}],
    ['per-actor path', noop],
  ])('%s: nobody entered → one zero-filled series', async (_n, ff) => {
    const r = await funnel([ev('a', 'buy', '2021-05-01T10:00:00Z')], {
      series: [E('sign up'), E('buy')],
      dateRange: { date_from: '2021-05-01', date_to: '2021-05-03' },
      funnelsFilter: { funnelVizType: 'trends', ...ff },
    });
    expect(r.results).toEqual([{ count: 3, data: [0, 0, 0], days: ['2021-05-01', '2021-05-02', '2021-05-03'], labels: ['1-May-2021', '2-May-2021', '3-May-2021'] }]);
  });

  it.each([
    ['SQL path', {}],
    ['per-actor path', noop],
  ])('%s: an actor entering twice in one period counts once, at their furthest step', async (_n, ff) => {
    const r = await funnel(
      [
        ev('a', 'sign up', '2021-05-01T01:00:00Z'),
        ev('a', 'sign up', '2021-05-01T03:00:00Z'),
        ev('a', 'buy', '2021-05-01T04:00:00Z'),
        ev('b', 'sign up', '2021-05-01T05:00:00Z'),
      ],
      {
        series: [E('sign up'), E('buy')],
        dateRange: { date_from: '2021-05-01', date_to: '2021-05-02' },
        funnelsFilter: { funnelVizType: 'trends', ...ff },
      },
    );
    expect(r.results[0].data).toEqual([50, 0]);
  });

  it('weeks start on Monday when the project says so', async () => {
    const r = await funnel(
      [ev('a', 'sign up', '2021-05-03T01:00:00Z'), ev('a', 'buy', '2021-05-03T02:00:00Z')],
      { series: [E('sign up'), E('buy')], interval: 'week', dateRange: { date_from: '2021-05-01', date_to: '2021-05-10' }, funnelsFilter: { funnelVizType: 'trends' } },
      { week_start_day: 1 },
    );
    expect(r.results[0]).toEqual({ count: 3, data: [0, 100, 0], days: ['2021-04-26', '2021-05-03', '2021-05-10'], labels: ['26-Apr-2021', '3-May-2021', '10-May-2021'] });
  });
});

describe('funnel trends: entries advance independently (funnel trends UDF list_of_entered_timestamps; legacy per-row chains)', () => {
  const noop = { exclusions: [{ kind: 'EventsNode', event: 'never happens', funnelFromStep: 0, funnelToStep: 1 }] };
  it.each([
    ['SQL path', 'ordered', {}],
    ['per-actor path', 'ordered', noop],
    ['strict', 'strict', {}],
  ])('%s: a later entry does not take over an earlier period’s entry', async (_n, order, ff) => {
    const r = await funnel(
      [ev('a', 'step one', '2021-05-01T10:00:00Z'), ev('a', 'step one', '2021-05-02T10:00:00Z'), ev('a', 'step two', '2021-05-03T10:00:00Z')],
      {
        series: [E('step one'), E('step two')],
        dateRange: { date_from: '2021-05-01', date_to: '2021-05-04' },
        funnelsFilter: { funnelVizType: 'trends', funnelOrderType: order, ...ff },
      },
    );
    // strict too: a repeated step-one event does not break the first entry (the UDF only clears the steps the event
    // does not match), so both entries convert on the same step two
    expect(r.results[0].data).toEqual([100, 100, 0, 0]);
  });

  it('test_one_person_in_multiple_periods_and_windows', async () => {
    const t = (d: number, hh: number) => new Date(Date.UTC(2021, 4, d, hh)).toISOString();
    const r = await funnel(
      [
        ev('user_one', 'step one', t(1, 1)),
        ev('user_one', 'step two', t(1, 2)),
        ev('user_one', 'step three', t(1, 3)),
        ev('user_one', 'step one', t(3, 1)),
        ev('user_one', 'step two', t(3, 2)),
        ev('user_one', 'step one', t(4, 11)),
        ev('user_one', 'step two', t(4, 12)),
        ev('user_one', 'step three', t(4, 13)),
        ev('user_two', 'step one', t(4, 18)),
      ],
      {
        series: [E('step one'), E('step two'), E('step three')],
        interval: 'day',
        dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-04 23:59:59' },
        funnelsFilter: { funnelVizType: 'trends', funnelWindowInterval: 1, funnelWindowIntervalUnit: 'day' },
      },
    );
    expect(r.results[0].data).toEqual([100, 0, 0, 50]);
  });
});

describe('funnel trends, strict: another event in between ends the entry', () => {
  it('strict entry broken by an unrelated event; a later clean entry converts', async () => {
    const r = await funnel(
      [
        ev('a', 'step one', '2021-05-01T10:00:00Z'),
        ev('a', 'other', '2021-05-01T10:01:00Z'),
        ev('a', 'step two', '2021-05-01T10:02:00Z'),
        ev('b', 'step one', '2021-05-02T10:00:00Z'),
        ev('b', 'step two', '2021-05-02T10:02:00Z'),
      ],
      {
        series: [E('step one'), E('step two')],
        dateRange: { date_from: '2021-05-01', date_to: '2021-05-02' },
        funnelsFilter: { funnelVizType: 'trends', funnelOrderType: 'strict' },
      },
    );
    expect(r.results[0].data).toEqual([0, 100]);
  });
});

describe('test_funnel_personless_events_are_supported', () => {
  const personless = { $process_person_profile: false };
  it.each([
    ['SQL path', {}],
    ['per-actor path', { exclusions: [{ kind: 'EventsNode', event: 'never happens', funnelFromStep: 0, funnelToStep: 1 }] }],
  ])('%s: personless events are one actor per distinct id', async (_n, ff) => {
    const pid = await h.load({
      persons: persons('identified'),
      events: [
        ev('user', 'user signed up', '2021-05-01T10:00:00Z', personless),
        ev('user', 'paid', '2021-05-01T10:05:00Z', personless),
        ev('other_anon', 'user signed up', '2021-05-01T10:00:00Z', personless),
        ev('identified', 'user signed up', '2021-05-01T10:00:00Z'),
      ],
    });
    const r = await h.run(
      funnelsRunner,
      { kind: 'FunnelsQuery', series: [E('user signed up'), E('paid')], dateRange: { date_from: '2021-05-01', date_to: '2021-05-02' }, funnelsFilter: ff },
      pid,
    );
    expect(counts(r)).toEqual([3, 1]);
    expect(r.results[1].average_conversion_time).toBe(300);
  });
});

describe('test_funnel_step_breakdown_with_step_attribution (and first/last touch on the same journeys)', () => {
  const events = [
    ev('person1', 'sign up', '2020-01-01T12:00:00Z', { $browser: 'Chrome' }),
    ev('person1', 'buy', '2020-01-01T13:00:00Z', { $browser: 'Safari' }),
    ev('person2', 'sign up', '2020-01-01T13:00:00Z'),
    ev('person2', 'buy', '2020-01-02T13:00:00Z', { $browser: 'Safari' }),
    ev('person3', 'sign up', '2020-01-02T14:00:00Z', { $browser: 'Mac' }),
    ev('person3', 'buy', '2020-01-02T15:00:00Z'),
    // step attribution means alakazam is valid when step = 1
    ev('person4', 'sign up', '2020-01-02T15:00:00Z', { $browser: 0 }),
    ev('person4', 'buy', '2020-01-02T16:00:00Z', { $browser: 'alakazam' }),
  ];
  const q = (ff: Record<string, unknown>) => ({
    series: [E('sign up'), E('buy')],
    dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' },
    funnelsFilter: { funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day', ...ff },
    breakdownFilter: { breakdown_type: 'event', breakdown: ['$browser'] },
  });
  const sorted = (r: any) => byBreakdown(r).sort((a: any, b: any) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  it.each([
    [
      'step 0',
      { breakdownAttributionType: 'step', breakdownAttributionValue: 0 },
      [
        [[''], [1, 1]],
        [['0'], [1, 1]],
        [['Chrome'], [1, 1]],
        [['Mac'], [1, 1]],
      ],
    ],
    [
      'step 1',
      { breakdownAttributionType: 'step', breakdownAttributionValue: 1 },
      [
        [[''], [1, 1]],
        [['Safari'], [2, 2]],
        [['alakazam'], [1, 1]],
      ],
    ],
    [
      'first_touch',
      { breakdownAttributionType: 'first_touch' },
      [
        [['0'], [1, 1]],
        [['Chrome'], [1, 1]],
        [['Mac'], [1, 1]],
        [['Safari'], [1, 1]],
      ],
    ],
    [
      'last_touch',
      { breakdownAttributionType: 'last_touch' },
      [
        [['Mac'], [1, 1]],
        [['Safari'], [2, 2]],
        [['alakazam'], [1, 1]],
      ],
    ],
  ])('%s', async (_n, ff, expected) => {
    const r = await funnel(events, q(ff));
    expect(sorted(r)).toEqual(expected);
  });
});

describe('first-time step math (§3.3 First-time math; funnel _build_step_query with FirstTimeForUserEventsQueryAlternator)', () => {
  const pro = [{ type: 'event', key: 'plan', value: 'pro', operator: 'exact' }];
  const events = [
    // first signup before the range: never a first-time entry inside it
    ev('user_1', 'user signed up', '2024-03-20T13:00:00Z'),
    ev('user_1', 'user signed up', '2024-03-23T13:00:00Z', { plan: 'pro' }),
    ev('user_1', '$pageview', '2024-03-24T13:00:00Z'),
    ev('user_2', 'user signed up', '2024-03-22T13:00:00Z', { plan: 'pro' }),
    ev('user_2', 'user signed up', '2024-03-25T13:00:00Z', { plan: 'pro' }),
    ev('user_2', '$pageview', '2024-03-23T13:00:00Z'),
    // first signup is "free": only the with-filters variant finds the later "pro" one
    ev('user_3', 'user signed up', '2024-03-22T13:00:00Z', { plan: 'free' }),
    ev('user_3', 'user signed up', '2024-03-23T13:00:00Z', { plan: 'pro' }),
    ev('user_3', '$pageview', '2024-03-24T13:00:00Z'),
  ];
  const q = (math: string, props?: unknown[]) => ({
    series: [E('user signed up', { math, ...(props ? { properties: props } : {}) }), E('$pageview')],
    dateRange: { date_from: '2024-03-21', date_to: '2024-03-30' },
  });
  it.each([
    // user_1's first signup is before the range; user_2 converts in 1 day, user_3 in 2
    ['first_time_for_user', undefined, [2, 2], 129600],
    // the first signup must itself match: user_3's first one is "free"
    ['first_time_for_user', pro, [1, 1], 86400],
    // the first "pro" signup of each user (user_1's is inside the range)
    ['first_time_for_user_with_filters', pro, [3, 3], 86400],
    ['total', pro, [3, 3], 86400],
  ])('%s with filters %j', async (math, props, expected, time) => {
    const r = await funnel(events, q(math, props as unknown[] | undefined));
    expect(counts(r)).toEqual(expected);
    expect(r.results[1].average_conversion_time).toBe(time);
  });

  it('a first-time step after the first step', async () => {
    const r = await funnel(
      [
        ev('a', '$pageview', '2024-03-22T10:00:00Z'),
        ev('a', 'paid', '2024-03-22T11:00:00Z'),
        ev('b', 'paid', '2024-03-21T09:00:00Z'),
        ev('b', '$pageview', '2024-03-22T10:00:00Z'),
        ev('b', 'paid', '2024-03-22T11:00:00Z'),
      ],
      { series: [E('$pageview'), E('paid', { math: 'first_time_for_user' })], dateRange: { date_from: '2024-03-21', date_to: '2024-03-30' } },
    );
    expect(counts(r)).toEqual([2, 1]);
  });

  it.each<[string, number[], number | null]>([
    // u1 signs up after its pageview; u2’s first signup is before the range; u3 and u4 convert in 2 h
    ['ordered', [3, 2], 7200],
    // strict: u3’s other event and u4’s second (not first-time) signup are events between the steps
    ['strict', [3, 0], null],
    // unordered: u1 converts (1 day) and u2’s pageview is one completed step
    ['unordered', [4, 3], (86400 + 7200 + 7200) / 3],
  ])('a first-time step in a %s funnel (derived: the first-time condition is the step’s own)', async (funnelOrderType, expected, avg) => {
    const r = await funnel(
      [
        ev('u1', '$pageview', '2024-03-21T13:00:00Z'),
        ev('u1', 'signup', '2024-03-22T13:00:00Z'),
        ev('u2', 'signup', '2024-03-10T13:00:00Z'),
        ev('u2', 'signup', '2024-03-22T13:00:00Z'),
        ev('u2', '$pageview', '2024-03-23T13:00:00Z'),
        ev('u3', 'signup', '2024-03-22T13:00:00Z'),
        ev('u3', 'other', '2024-03-22T14:00:00Z'),
        ev('u3', '$pageview', '2024-03-22T15:00:00Z'),
        ev('u4', 'signup', '2024-03-22T13:00:00Z'),
        ev('u4', 'signup', '2024-03-22T14:00:00Z'),
        ev('u4', '$pageview', '2024-03-22T15:00:00Z'),
      ],
      {
        series: [E('signup', { math: 'first_time_for_user' }), E('$pageview')],
        dateRange: { date_from: '2024-03-20', date_to: '2024-03-30' },
        funnelsFilter: { funnelOrderType },
      },
    );
    expect(counts(r)).toEqual(expected);
    expect(r.results[1].average_conversion_time).toBe(avg);
  });

  describe('test_first_time_for_user_funnel_multiple_ids: the first time is the person’s, over all its distinct ids (derived)', () => {
    const people = [{ distinct_ids: ['user_1', 'user_1_alias'], properties: {} }];
    const events = [
      ev('user_1', 'user signed up', '2024-03-20T13:00:00Z'),
      ev('user_1_alias', '$pageview', '2024-03-22T13:00:00Z'),
      ev('user_1_alias', 'user signed up', '2024-03-23T13:00:00Z'),
      ev('user_1', '$pageview', '2024-03-24T13:00:00Z'),
      ev('user_2', 'user signed up', '2024-03-24T13:00:00Z'),
      ev('user_2', '$pageview', '2024-03-25T13:00:00Z'),
    ];
    it.each<[string, string, unknown[], number[], number | null]>([
      // user_1 signed up first on Mar 20 (as user_1): 2 days to its first pageview (as user_1_alias)
      ['first step, range from Mar 20', '2024-03-20', [E('user signed up', { math: 'first_time_for_user' }), E('$pageview')], [2, 2], (2 * 86400 + 86400) / 2],
      // from Mar 21 user_1’s first signup is out of the range; its alias’s later signup is no first time
      ['first step, range from Mar 21', '2024-03-21', [E('user signed up', { math: 'first_time_for_user' }), E('$pageview')], [1, 1], 86400],
      // second step: each person’s first signup precedes its pageviews, so nobody converts
      ['second step', '2024-03-20', [E('$pageview'), E('user signed up', { math: 'first_time_for_user' })], [2, 0], null],
    ])('%s', async (_n, date_from, series, expected, avg) => {
      const r = await funnel(events, { series, dateRange: { date_from, date_to: '2024-03-30' } }, {}, people);
      expect(counts(r)).toEqual(expected);
      expect(r.results[1].average_conversion_time).toBe(avg);
    });
  });
});

describe('"" and missing properties in funnels (funnels base.py get_breakdown_expr: ifNull(toString(prop), \'\'); funnel_udf.py first/last touch pick a non-empty value; derived)', () => {
  // e1: "" on its entry, "x" on its conversion; e2: no property; e3: "y", no conversion; e4: "" on both events
  const events = [
    ev('e1', 'ea', '2021-05-01T11:00:00Z', { v: '', w: 'a' }),
    ev('e1', 'eb', '2021-05-01T11:01:00Z', { v: 'x' }),
    ev('e2', 'ea', '2021-05-01T11:00:00Z', { w: 'a' }),
    ev('e2', 'eb', '2021-05-01T11:01:00Z'),
    ev('e3', 'ea', '2021-05-02T11:00:00Z', { v: 'y' }),
    ev('e4', 'ea', '2021-05-02T11:00:00Z', { v: '', w: '' }),
    ev('e4', 'eb', '2021-05-02T12:00:00Z', { v: '' }),
  ];
  const q = (breakdown: unknown, ff: Record<string, unknown> = {}, breakdown_type = 'event') => ({
    series: [E('ea'), E('eb')],
    dateRange: { date_from: '2021-05-01', date_to: '2021-05-02' },
    breakdownFilter: { breakdown_type, breakdown },
    funnelsFilter: ff,
  });
  const sorted = (r: any) => byBreakdown(r).sort((a, b) => (JSON.stringify(a[0]) < JSON.stringify(b[0]) ? -1 : 1));

  it.each<[string, unknown, Record<string, unknown>, unknown[]]>([
    // e1 takes "x" (the first non-empty value); "" and a missing key are the one value ""
    ['first_touch', 'v', {}, [[[''], [2, 2]], [['x'], [1, 1]], [['y'], [1, 0]]]],
    ['last_touch', 'v', { breakdownAttributionType: 'last_touch' }, [[[''], [2, 2]], [['x'], [1, 1]], [['y'], [1, 0]]]],
    ['unordered, first_touch', 'v', { funnelOrderType: 'unordered' }, [[[''], [2, 2]], [['x'], [1, 1]], [['y'], [1, 0]]]],
    // each value its own funnel: e1’s "" entry does not convert under "" (its conversion is "x", with no entry there)
    ['all_events', 'v', { breakdownAttributionType: 'all_events' }, [[[''], [3, 2]], [['y'], [1, 0]]]],
    // the value of the entry event: e1 is under ""
    ['step 0', 'v', { breakdownAttributionType: 'step', breakdownAttributionValue: 0 }, [[[''], [3, 3]], [['y'], [1, 0]]]],
    // two properties: first touch takes the first pair with a non-empty value; e4 has none, so ["", ""]
    ['two properties, first_touch', ['w', 'v'], {}, [[['', ''], [1, 1]], [['', 'y'], [1, 0]], [['a', ''], [2, 2]]]],
    ['two properties, all_events', ['w', 'v'], { breakdownAttributionType: 'all_events' }, [[['', ''], [1, 1]], [['', 'y'], [1, 0]], [['a', ''], [2, 0]]]],
  ])('%s', async (_n, breakdown, ff, expected) => {
    expect(sorted(await funnel(events, q(breakdown, ff)))).toEqual(expected);
  });

  it('trends: one series for "" (e2 on May 1, e4 on May 2), e1 under "x"', async () => {
    const r = await funnel(events, q('v', { funnelVizType: 'trends' }));
    expect((r.results as any[]).map((s) => [s.breakdown_value, s.data])).toEqual([
      [[''], [100, 100]],
      [['x'], [100, 0]],
      [['y'], [0, 0]],
    ]);
  });

  it.each<[string, Record<string, unknown>, number[]]>([
    // a "" value is set and equals ""; only a missing key is not set
    ['exact ""', { operator: 'exact', value: '' }, [2, 2]],
    ['is_set', { operator: 'is_set' }, [3, 2]],
    ['is_not_set', { operator: 'is_not_set' }, [1, 1]],
  ])('a step filter %s on the entry', async (_n, filter, expected) => {
    const r = await funnel(events, { series: [E('ea', { properties: [{ type: 'event', key: 'v', ...filter }] }), E('eb')], dateRange: { date_from: '2021-05-01', date_to: '2021-05-02' } });
    expect(counts(r)).toEqual(expected);
  });
});

describe('time_to_convert histogram_params', () => {
  it('sub-second conversion times: floor(min)/ceil(max) bounds, average rounded to 2 dp', async () => {
    const r = await funnel(
      [
        ev('a', 'step one', '2021-06-08T18:00:00.000Z'),
        ev('a', 'step two', '2021-06-08T18:00:00.250Z'),
        ev('b', 'step one', '2021-06-08T18:00:00.900Z'),
        ev('b', 'step two', '2021-06-08T18:00:02.600Z'),
        ev('c', 'step one', '2021-06-08T18:00:00.000Z'),
        ev('c', 'step two', '2021-06-08T18:00:04.000Z'),
      ],
      {
        series: [E('step one'), E('step two')],
        dateRange: { date_from: '2021-06-07', date_to: '2021-06-13' },
        funnelsFilter: { funnelVizType: 'time_to_convert', binCount: 2 },
      },
    );
    // times 0.25, 1.7, 4 → from 0, to 4, width 2
    expect(r.results.bins).toEqual([
      [0, 2],
      [2, 0],
      [4, 1],
    ]);
    expect(r.results.average_conversion_time).toBe(1.98);
  });
});

describe('exclusions mark the sequence, not the actor (funnel UDF: excluded entered timestamps)', () => {
  const ex = (from = 0, to = 1) => ({ exclusions: [{ kind: 'EventsNode', event: 'exclusion', funnelFromStep: from, funnelToStep: to }] });
  const steps = { series: [E('step one'), E('step two')], dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-13 23:59:59' } };

  it('test_funnel_exclusion_multiple_possible_no_end_event1: a later clean entry still counts at step 1', async () => {
    const r = await funnel(
      [ev('user_one', 'step one', '2021-05-01T00:00:00Z'), ev('user_one', 'exclusion', '2021-05-01T00:00:01Z'), ev('user_one', 'step one', '2021-05-01T00:00:31Z')],
      { ...steps, funnelsFilter: { funnelWindowInterval: 10, funnelWindowIntervalUnit: 'second', ...ex() } },
    );
    expect(counts(r)).toEqual([1, 0]);
  });

  it('an excluded entry inside the window of the latest one drops the actor', async () => {
    const r = await funnel(
      [ev('user_one', 'step one', '2021-05-01T00:00:00Z'), ev('user_one', 'step one', '2021-05-01T00:00:02Z'), ev('user_one', 'exclusion', '2021-05-01T00:00:03Z')],
      { ...steps, funnelsFilter: { funnelWindowInterval: 10, funnelWindowIntervalUnit: 'second', ...ex() } },
    );
    expect(r.results).toEqual([]);
  });

  it('a completed clean sequence is kept when a later attempt is excluded', async () => {
    const r = await funnel(
      [
        ev('p', 'step one', '2021-05-01T01:00:00Z'),
        ev('p', 'step two', '2021-05-01T02:00:00Z'),
        ev('p', 'step one', '2021-05-01T05:00:00Z'),
        ev('p', 'exclusion', '2021-05-01T05:30:00Z'),
      ],
      { ...steps, funnelsFilter: ex() },
    );
    expect(counts(r)).toEqual([1, 1]);
    expect(r.results[1].average_conversion_time).toBe(3600);
  });

  it('an excluded attempt followed by a clean one that converts', async () => {
    const r = await funnel(
      [
        ev('p', 'step one', '2021-05-01T01:00:00Z'),
        ev('p', 'exclusion', '2021-05-01T01:30:00Z'),
        ev('p', 'step one', '2021-05-01T02:00:00Z'),
        ev('p', 'step two', '2021-05-01T03:00:00Z'),
      ],
      { ...steps, funnelsFilter: ex() },
    );
    expect(counts(r)).toEqual([1, 1]);
    expect(r.results[1].average_conversion_time).toBe(3600);
  });

  it('funnel trends: an excluded entry is left out of its period, other periods still count', async () => {
    const r = await funnel(
      [
        ev('a', 'step one', '2021-05-01T01:00:00Z'),
        ev('a', 'exclusion', '2021-05-01T01:30:00Z'),
        ev('a', 'step two', '2021-05-01T02:00:00Z'),
        ev('a', 'step one', '2021-05-03T01:00:00Z'),
        ev('a', 'step two', '2021-05-03T02:00:00Z'),
        ev('b', 'step one', '2021-05-01T01:00:00Z'),
      ],
      { ...steps, dateRange: { date_from: '2021-05-01', date_to: '2021-05-03' }, funnelsFilter: { funnelVizType: 'trends', ...ex() } },
    );
    expect(r.results[0].data).toEqual([0, 0, 100]);
  });
});

describe('test_breakdowns_by_current_url (funnels)', () => {
  it('breakdown_normalize_url strips trailing "/?#" and merges the values', async () => {
    const r = await funnel(
      [
        ev('person1', 'watched movie', '2020-01-02T12:00:00Z', { $current_url: 'https://example.com' }),
        ev('person2', 'watched movie', '2020-01-02T12:00:00Z', { $current_url: 'https://example.com/' }),
        ev('person3', 'watched movie', '2020-01-02T12:00:00Z', { $current_url: 'https://example.com/home/?' }),
        ev('person4', 'watched movie', '2020-01-02T12:00:00Z', { $current_url: 'https://example.com/home' }),
        ev('person5', 'watched movie', '2020-01-02T12:00:00Z', { $current_url: 'https://example.com/home#' }),
      ],
      {
        series: [E('watched movie'), E('buy')],
        dateRange: { date_from: '2020-01-01', date_to: '2020-01-12' },
        breakdownFilter: { breakdown_type: 'event', breakdown: '$current_url', breakdown_normalize_url: true },
      },
    );
    expect(byBreakdown(r)).toEqual([
      [['https://example.com/home'], [3, 0]],
      [['https://example.com'], [2, 0]],
    ]);
  });
});

describe('breakdown limit by breakdown type (funnel UDF use_breakdown_limit: event/person/group only)', () => {
  const events = [
    ev('a', 'sign up', '2020-01-02T10:00:00Z', { $browser: 'Chrome' }),
    ev('a', 'buy', '2020-01-02T10:10:00Z', { $browser: 'Chrome' }),
    ev('b', 'sign up', '2020-01-02T10:00:00Z', { $browser: 'Safari' }),
    ev('c', 'sign up', '2020-01-02T10:00:00Z', { $browser: 'Edge' }),
  ];
  const q = (bf: Record<string, unknown>) => ({ series: [E('sign up'), E('buy')], dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' }, breakdownFilter: bf });
  it('event breakdown: the rest is grouped as ["Other"]', async () => {
    const r = await funnel(events, q({ breakdown_type: 'event', breakdown: '$browser', breakdown_limit: 1 }));
    expect(byBreakdown(r)).toEqual([
      [['Chrome'], [1, 1]],
      [['Other'], [2, 0]],
    ]);
  });
  it('hogql breakdown: no "Other", every value (up to 100 rows)', async () => {
    const r = await funnel(events, q({ breakdown_type: 'hogql', breakdown: 'properties.$browser', breakdown_limit: 1 }));
    expect(byBreakdown(r)).toEqual([
      [['Chrome'], [1, 1]],
      [['Edge'], [1, 0]],
      [['Safari'], [1, 0]],
    ]);
  });
  it('event_metadata breakdown: read as a ProductQL column (base.py _get_breakdown_expr), no "Other" either', async () => {
    const r = await funnel(events, q({ breakdown_type: 'event_metadata', breakdown: 'distinct_id', breakdown_limit: 1 }));
    expect(byBreakdown(r)).toEqual([
      [['a'], [1, 1]],
      [['b'], [1, 0]],
      [['c'], [1, 0]],
    ]);
  });
});

describe('test_funnel_trends.py (more)', () => {
  const three = [E('step one'), E('step two'), E('step three')];
  const zeros = (n: number) => new Array(n).fill(0);

  it('test_funnel_step_breakdown_event', async () => {
    const at = (d: number) => new Date(Date.UTC(2021, 4, d)).toISOString();
    const r = await funnel(
      [
        ev('user_one', 'step one', at(1), { $browser: 'Chrome' }),
        ev('user_one', 'step two', at(3), { $browser: 'Chrome' }),
        ev('user_one', 'step three', at(5), { $browser: 'Chrome' }),
        ev('user_two', 'step one', at(2), { $browser: 'Chrome' }),
        ev('user_two', 'step two', at(3), { $browser: 'Chrome' }),
        ev('user_three', 'step one', at(3), { $browser: 'Safari' }),
        ev('user_three', 'step two', at(4), { $browser: 'Safari' }),
        ev('user_three', 'step three', at(5), { $browser: 'Safari' }),
      ],
      {
        series: three,
        interval: 'day',
        dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-13 23:59:59' },
        funnelsFilter: { funnelVizType: 'trends', funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day' },
        breakdownFilter: { breakdown_type: 'event', breakdown: '$browser' },
      },
    );
    expect(r.results.map((x: any) => [x.breakdown_value, x.data])).toEqual([
      [['Chrome'], [100, ...zeros(12)]],
      [['Safari'], [0, 0, 100, ...zeros(10)]],
    ]);
  });

  it('test_month_interval', async () => {
    const r = await funnel(
      [ev('user_one', 'step one', '2020-05-01T00:00:00Z'), ev('user_one', 'step two', '2020-05-03T00:00:00Z'), ev('user_one', 'step three', '2020-05-05T00:00:00Z')],
      {
        series: three,
        interval: 'month',
        dateRange: { date_from: '2020-01-01 00:00:00', date_to: '2020-07-01 00:00:00' },
        funnelsFilter: { funnelVizType: 'trends', funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day' },
      },
    );
    expect(r.results).toEqual([
      {
        count: 7,
        data: [0, 0, 0, 0, 100, 0, 0],
        days: ['2020-01-01', '2020-02-01', '2020-03-01', '2020-04-01', '2020-05-01', '2020-06-01', '2020-07-01'],
        labels: ['1-Jan-2020', '1-Feb-2020', '1-Mar-2020', '1-Apr-2020', '1-May-2020', '1-Jun-2020', '1-Jul-2020'],
      },
    ]);
  });

  it('a month interval reads events from date_from itself, not from the 1st of its month (steps and trends)', async () => {
    const events = [ev('early', 'step one', '2020-05-02T00:00:00Z'), ev('early', 'step two', '2020-05-03T00:00:00Z'), ev('late', 'step one', '2020-05-20T00:00:00Z')];
    const q = { series: three.slice(0, 2), interval: 'month', dateRange: { date_from: '2020-05-10', date_to: '2020-06-30' } };
    expect(counts(await funnel(events, q))).toEqual([1, 0]);
    const t = await funnel(events, { ...q, funnelsFilter: { funnelVizType: 'trends' } });
    expect(t.results[0].data).toEqual([0, 0]);
  });

  it('test_all_date_range: date_from "all" starts at the first event (frozen clock)', async () => {
    const restore = setInsightsClock(new Date('2021-05-20T13:01:01Z'));
    try {
      const r = await funnel(
        [ev('user_one', 'step one', '2021-05-01T00:00:00Z'), ev('user_one', 'step two', '2021-05-03T00:00:00Z'), ev('user_one', 'step three', '2021-05-05T00:00:00Z')],
        { series: three, interval: 'day', dateRange: { date_from: 'all' }, funnelsFilter: { funnelVizType: 'trends', funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day' } },
      );
      expect(r.results[0].count).toBe(20);
      expect(r.results[0].days[0]).toBe('2021-05-01');
      expect(r.results[0].days[19]).toBe('2021-05-20');
      expect(r.results[0].data).toEqual([100, ...zeros(19)]);
    } finally {
      restore();
    }
  });
});

describe('test_funnel_all_events_with_properties', () => {
  it('an all-events step with a property filter; a boolean property matches "true"', async () => {
    const r = await funnel(
      [ev('user', 'user signed up', '2020-01-02T14:00:00Z'), ev('user', 'added to dashboard', '2020-01-02T14:10:00Z', { is_saved: true })],
      {
        series: [
          E('user signed up', { name: 'user signed up', math: 'total' }),
          E(null, { name: 'All events', math: 'total', properties: [{ key: 'is_saved', value: ['true'], operator: 'exact', type: 'event' }] }),
        ],
        dateRange: { date_from: '2020-01-01', date_to: '2020-01-14' },
      },
    );
    expect(r.results.map((s: any) => [s.name, s.count, s.average_conversion_time])).toEqual([
      ['user signed up', 1, null],
      [null, 1, 600],
    ]);
  });
});

describe('entryReach: the binary-search form equals the scan form', () => {
  it('on random event lists (repeated steps, equal times, windows)', () => {
    let seed = 11;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let converted = 0;
    for (let round = 0; round < 300; round++) {
      const n = 2 + Math.floor(rnd() * 3);
      const events: FunnelEvent[] = [];
      for (let i = 0, m = Math.floor(rnd() * 25); i < m; i++)
        events.push({ ts: Math.floor(rnd() * 20) * 1000, steps: Math.floor(rnd() * 2 ** n), excl: 0, bd: '' });
      events.sort((a, b) => a.ts - b.ts);
      const cfg: FunnelConfig = { numSteps: n, order: 'ordered', windowMs: (1 + Math.floor(rnd() * 10)) * 1000, optional: new Array(n).fill(false), exclusions: [] };
      // an exclusion no event matches forces the scan form
      const scan = entryReach(events, { ...cfg, exclusions: [{ from: 0, to: 1 }] });
      expect([...entryReach(events, cfg)]).toEqual([...scan]);
      for (const r of scan.values()) if (r > 0) converted++;
    }
    expect(converted).toBeGreaterThan(100);
  });
});
