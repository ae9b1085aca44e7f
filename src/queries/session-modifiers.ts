import { z } from 'zod';
import { validationError } from '../errors';
import { CUSTOM_CHANNEL_KEYS, CUSTOM_CHANNEL_OPS, type CustomChannelRule } from '../productql/channel-type';
import type { SessionModifiers } from '../productql/sessions';

/**
 * The query's modifiers that change the sessions table (`$is_bounce`, `$channel_type`), read from a node's
 * `modifiers`. Every query kind honours them, as PostHog's QueryRunner takes `query.modifiers` into the HogQL context
 * its queries run with (`extract_modifiers`), so a TrendsQuery's session filters and breakdowns see them too.
 */
export function sessionModifiersOf(modifiers: unknown): SessionModifiers {
  const m = modifiers !== null && typeof modifiers === 'object' && !Array.isArray(modifiers) ? (modifiers as Record<string, unknown>) : undefined;
  const out: SessionModifiers = {};
  const bounce = bounceRateDuration(m);
  if (bounce !== undefined) out.bounceRateDurationSeconds = bounce;
  const rules = customChannelRules(m);
  if (rules !== undefined) out.customChannelTypeRules = rules;
  return out;
}

/** PostHog's `bounceRateDurationSeconds` modifier (`$is_bounce` of the sessions table), when the query sets one. */
function bounceRateDuration(modifiers: Record<string, unknown> | undefined): number | undefined {
  const v = modifiers?.bounceRateDurationSeconds;
  if (v === undefined || v === null) return undefined;
  // a float, as PostHog's HogQLQueryModifiers (pydantic also takes its text)
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n)) throw validationError('modifiers.bounceRateDurationSeconds must be a number', 'modifiers');
  return n;
}

/** PostHog's CustomChannelRule (its `id`s name rules in the UI and change nothing). */
const customChannelRulesSchema = z.array(
  z.object({
    items: z.array(
      z.object({
        key: z.enum(CUSTOM_CHANNEL_KEYS),
        op: z.enum(CUSTOM_CHANNEL_OPS),
        value: z.union([z.string(), z.array(z.string())]).nullish(),
        id: z.string().nullish(),
      }),
    ),
    combiner: z.enum(['AND', 'OR']),
    channel_type: z.string(),
    id: z.string().nullish(),
  }),
);

/** PostHog's `customChannelTypeRules` modifier (`$channel_type` of the sessions table), when the query sets one. */
function customChannelRules(modifiers: Record<string, unknown> | undefined): CustomChannelRule[] | undefined {
  const v = modifiers?.customChannelTypeRules;
  if (v === undefined || v === null) return undefined;
  const parsed = customChannelRulesSchema.safeParse(v);
  if (!parsed.success) throw validationError(`modifiers.customChannelTypeRules: ${parsed.error.issues[0]?.message ?? 'invalid'}`, 'modifiers');
  return parsed.data.map((r) => ({ items: r.items.map((c) => ({ key: c.key, op: c.op, value: c.value ?? null })), combiner: r.combiner, channel_type: r.channel_type }));
}

