import { createHash } from 'node:crypto';

/** PostHog's PERSON_UUIDV5_NAMESPACE (plugin-server person-uuid, posthog/models/person/util.py). */
const PERSON_UUIDV5_NAMESPACE = '932979b4-65c3-4424-8467-0b66ec27bc22';

/** An RFC 4122 version-5 UUID (SHA-1 of the namespace's bytes and the name's UTF-8). */
export function uuidV5(name: string, namespace: string): string {
  const h = createHash('sha1').update(Buffer.from(namespace.replace(/-/g, ''), 'hex')).update(name, 'utf8').digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/**
 * PostHog's uuidFromDistinctId: the person UUID a distinct id of a project gets when PostHog makes it a person of its
 * own (Person.split_person's `get_or_create(uuid=uuidFromDistinctId(team_id, distinct_id))`).
 */
export const uuidFromDistinctId = (projectId: number, distinctId: string): string => uuidV5(`${projectId}:${distinctId}`, PERSON_UUIDV5_NAMESPACE);
