/**
 * PostHog's virtual person properties (posthog/hogql/database/schema/persons.py, reference §1.4 "`$virt_*` keys →
 * `person.<key>`"): a `$virt_*` person key names a field the persons table computes from the person's properties,
 * not a stored property. `{type: 'person', key: '$virt_initial_channel_type', value: 'Organic Search'}` is
 * `person.$virt_initial_channel_type = 'Organic Search'` on events and `$virt_initial_channel_type = …` on persons
 * (test_property.py `test_virtual_person_properties_on_{event,person}_scope`).
 *
 * The fields and their expressions are the persons table's (src/productql/person-virtual-fields.ts), so a filter and a
 * ProductQL `person.$virt_*` read the same. Other `$virt_*` fields (revenue, referring domain type) are a 400.
 */
import type { Expr } from '../../productql/ast';
import { isPersonVirtualField, PERSON_VIRTUAL_FIELDS, personVirtualFieldExpr } from '../../productql/person-virtual-fields';
import { validationError } from '../../errors';

const VIRTUAL_PREFIX = '$virt_';

/** Whether a person property key names a virtual field. */
export const isPersonVirtualProperty = (key: string): boolean => key.startsWith(VIRTUAL_PREFIX);

/**
 * The expression of virtual person property `key` (the persons table's field of that name,
 * src/productql/person-virtual-fields.ts); `property(name)` reads one of the person's stored properties
 * (`person.properties.<name>` on events, `properties.<name>` on persons). An unknown `$virt_*` key is a 400 on `attr`.
 */
export function personVirtualPropertyExpr(key: string, property: (name: string) => Expr, attr: string): Expr {
  if (isPersonVirtualField(key)) return personVirtualFieldExpr(key, property);
  throw validationError(`Unknown virtual person property "${key}". Virtual person properties are: ${PERSON_VIRTUAL_FIELDS.join(', ')}.`, attr);
}
