/** Test support for the paths-posthog-compat suites: their events and how they print a result. Not part of the build. */
import { ev } from '../funnels/testing';

/** A link of a PathsQuery result. */
export type Link = { source: string; target: string; value: number; average_conversion_time: number };

/** A $pageview of `id` at `at` on `url` (its $current_url; null: no URL) with more `props`. */
export const pv = (id: string, url: string | null, at: string, props: Record<string, unknown> = {}) => ev(id, '$pageview', at, url === null ? props : { $current_url: url, ...props });

/** A $screen event of `id` at `at` on the screen `name`. */
export const screen = (id: string, name: string, at: string) => ev(id, '$screen', at, { $screen_name: name });

/** The links as `source -> target (value)`, in result order. */
export const edges = (results: Pick<Link, 'source' | 'target' | 'value'>[]) => results.map((e) => `${e.source} -> ${e.target} (${e.value})`);
