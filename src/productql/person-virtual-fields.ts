/**
 * PostHog's virtual person fields (posthog/hogql/database/schema/persons.py): fields of the persons table computed
 * from the person's stored properties, readable as `persons.$virt_<name>` and through the person joins of events
 * (`person.$virt_<name>`, `poe.$virt_<name>`, `pdi.person.$virt_<name>`). A person property filter or breakdown on a
 * `$virt_*` key reads the same expression (src/queries/insights/person-virtual-properties.ts).
 *
 * `$virt_initial_channel_type` is PostHog's `create_initial_channel_type`: the channel type (channel-type.ts) of the
 * person's `$initial_utm_source` / `_medium` / `_campaign`, `$initial_referring_domain`, `$initial_gclid`,
 * `$initial_fbclid` and `$initial_gad_source`, the first-touch values ingestion sets from their first event
 * (src/ingest/person-initial-properties.ts). PostHog's other virtual person fields (revenue, referring domain type)
 * are not fields here.
 */
import * as ast from './ast';
import type { Expr } from './ast';
import { channelTypeExpr } from './channel-type';

export const PERSON_VIRTUAL_FIELDS = ['$virt_initial_channel_type'] as const;
export type PersonVirtualField = (typeof PERSON_VIRTUAL_FIELDS)[number];

export const isPersonVirtualField = (key: string): key is PersonVirtualField => (PERSON_VIRTUAL_FIELDS as readonly string[]).includes(key);

/** The expression of virtual person field `key`; `read(name)` reads one of the person's stored properties. */
export function personVirtualFieldExpr(key: PersonVirtualField, read: (name: string) => Expr): Expr {
  switch (key) {
    case '$virt_initial_channel_type': {
      // PostHog's wrap_with_null_if_empty: '' and 'null' are missing (a click id of '' is no click id)
      const property = (name: string): Expr => ast.call('nullIf', [ast.call('nullIf', [read(name), ast.constant('')]), ast.constant('null')]);
      return channelTypeExpr({
        source: property('$initial_utm_source'),
        medium: property('$initial_utm_medium'),
        campaign: property('$initial_utm_campaign'),
        referringDomain: property('$initial_referring_domain'),
        hasGclid: ast.call('isNotNull', [property('$initial_gclid')]),
        hasFbclid: ast.call('isNotNull', [property('$initial_fbclid')]),
        gadSource: property('$initial_gad_source'),
      });
    }
  }
}
