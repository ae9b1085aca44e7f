import type { QueryRunner } from '../runner';
import { productqlRunner } from './productql-runner';

/** Every query kind the query operation answers. One line per runner; each runner is its own file. */
export const RUNNERS: QueryRunner[] = [
  productqlRunner,
];
