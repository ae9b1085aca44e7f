/** Helpers of funnels/common.ts that validate input. */
import { initParser } from '../../productql';
import { funnelActorHogQLExpr } from './common';

beforeAll(async () => {
  await initParser();
});

describe('funnelActorHogQLExpr (funnelAggregateByHogQL)', () => {
  it.each(['properties.$session_id', 'person_id', "concat(distinct_id, '-', properties.$browser)", '(select 1)'])('%s is a value per event', (text) => {
    expect(() => funnelActorHogQLExpr(text)).not.toThrow();
  });

  it.each(['count()', 'max(properties.$session_id)', 'concat(toString(uniq(distinct_id)), properties.$browser)'])(
    '%s aggregates: a 400 naming the field, in the same words on every engine',
    (text) => {
      expect(() => funnelActorHogQLExpr(text)).toThrow(expect.objectContaining({ status: 400, attr: 'funnelsFilter__funnelAggregateByHogQL' }));
    },
  );

  it('a syntax error is a 400', () => {
    expect(() => funnelActorHogQLExpr('properties.$session_id +')).toThrow(expect.objectContaining({ status: 400 }));
  });
});
