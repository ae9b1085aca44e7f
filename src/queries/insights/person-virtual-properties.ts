/**
 * PostHog's virtual person properties (posthog/hogql/database/schema/persons.py, reference §1.4 "`$virt_*` keys →
 * `person.<key>`"): a `$virt_*` person key names a field the persons table computes from the person's properties,
 * not a stored property. `{type: 'person', key: '$virt_initial_channel_type', value: 'Organic Search'}` is
 * `person.$virt_initial_channel_type = 'Organic Search'` on events and `$virt_initial_channel_type = …` on persons
 * (test_property.py `test_virtual_person_properties_on_{event,person}_scope`).
 *
 * `$virt_initial_channel_type` is PostHog's `create_initial_channel_type`: the channel type (src/productql/channel-type.ts)
 * of the person's `$initial_utm_source` / `_medium` / `_campaign`, `$initial_referring_domain`, `$initial_gclid`,
 * `$initial_fbclid` and `$initial_gad_source`, the first-touch values ingestion sets from their first event
 * (src/ingest/person-initial-properties.ts). Other `$virt_*` fields (revenue, referring domain type) are a 400.
 */
import type { Expr } from '../../productql/ast';
import * as ast from '../../productql/ast';
import { channelTypeExpr } from '../../productql/channel-type';
import { validationError } from '../../errors';

const VIRTUAL_PREFIX = '$virt_';
export const PERSON_VIRTUAL_PROPERTIES = ['$virt_initial_channel_type'] as const;

/** Whether a person property key names a virtual field. */
export const isPersonVirtualProperty = (key: string): boolean => key.startsWith(VIRTUAL_PREFIX);

/**
 * The expression of virtual person property `key`; `property(name)` reads one of the person's stored properties
 * (`person.properties.<name>` on events, `properties.<name>` on persons). An unknown `$virt_*` key is a 400 on `attr`.
 */
export function personVirtualPropertyExpr(key: string, property: (name: string) => Expr, attr: string): Expr {
  if (key === '$virt_initial_channel_type') {
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
  throw validationError(`Unknown virtual person property "${key}". Virtual person properties are: ${PERSON_VIRTUAL_PROPERTIES.join(', ')}.`, attr);
}
