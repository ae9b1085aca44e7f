/**
 * Shared machinery of the insight runners (trends, stickiness, lifecycle, funnels, retention, paths).
 * One concept per file; this index only re-exports.
 */
export * from './local-time';
export * from './interval';
export * from './date-range';
export * from './schema';
export * from './property-filters';
export * from './series';
export * from './math';
export * from './breakdown';
export * from './compare';
export * from './formula';
export * from './execute';
export * from './shared';
