import type { QueryRunner } from '../runner';
import { productqlRunner } from './productql-runner';
import { trendsRunner } from './trends-runner';
import { stickinessRunner } from './stickiness-runner';
import { lifecycleRunner } from './lifecycle-runner';
import { funnelsRunner } from './funnels-runner';
import { retentionRunner } from './retention-runner';
import { pathsRunner } from './paths-runner';
import { actorsRunner } from './actors-runner';
import { eventsRunner } from './events-runner';
import { insightActorsOptionsRunner } from './insight-actors-options-runner';

/** Every query kind the query operation answers. One line per runner; each runner is its own file. */
export const RUNNERS: QueryRunner[] = [
  productqlRunner,
  trendsRunner,
  stickinessRunner,
  lifecycleRunner,
  funnelsRunner,
  retentionRunner,
  pathsRunner,
  eventsRunner,
  actorsRunner,
  insightActorsOptionsRunner,
];
