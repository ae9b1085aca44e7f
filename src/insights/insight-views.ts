import { In, type Repository } from 'typeorm';
import { z } from 'zod';
import { Insight, InsightViewed } from '../store/entities';
import type { Store } from '../store/store';
import { parseInput } from '../validation';
import { drfInteger, drfList } from './drf-fields';

/** PostHog's viewed action: 1 to 2,500 insight ids per call. */
const viewedBody = z.object({ insight_ids: drfList(drfInteger(), { min: 1, max: 2500 }) });

/** How many viewers a trending insight lists (PostHog: up to 3). */
const TRENDING_VIEWERS = 3;

/** How many insights `my_last_viewed` answers (PostHog's slice of 5). */
export const MY_LAST_VIEWED_COUNT = 5;

/**
 * Who viewed which insight when (PostHog's InsightViewed): one row per user and insight, moved to the latest view.
 * Views are per user: `last_viewed_at` and the last-viewed filters read the caller's own views, as PostHog's
 * serializer annotates them for `request.user`.
 */
export class InsightViews {
  constructor(private readonly store: Store) {}

  private get repo(): Repository<InsightViewed> {
    return this.store.db.getRepository(InsightViewed);
  }

  /** The body of `POST …/insights/viewed/`: its insight ids (400 naming `insight_ids` otherwise). */
  static parseViewed(input: unknown): number[] {
    return parseInput(viewedBody, input ?? {}).insight_ids;
  }

  /**
   * Records that `userId` viewed these insights now. Ids of other projects, unknown or deleted insights are ignored
   * (PostHog filters the ids by the team and answers 201 all the same).
   */
  async record(projectId: number, userId: number, insightIds: number[], at = new Date()): Promise<void> {
    const ids = [...new Set(insightIds)];
    await this.store.db.transaction(async (m) => {
      const live = await m.getRepository(Insight).find({ select: { id: true }, where: { project_id: projectId, deleted: false, id: In(ids) } });
      const repo = m.getRepository(InsightViewed);
      for (const { id } of live) {
        await repo.upsert({ project_id: projectId, user_id: userId, insight_id: id, last_viewed_at: at }, ['user_id', 'insight_id']);
      }
    });
  }

  /** When `userId` last viewed each of the project's insights (only the viewed ones are in the map). */
  async lastViewed(projectId: number, userId: number | null, insightIds?: number[]): Promise<Map<number, Date>> {
    if (userId === null) return new Map();
    const rows = await this.repo.find({
      where: { project_id: projectId, user_id: userId, ...(insightIds ? { insight_id: In(insightIds) } : {}) },
    });
    return new Map(rows.map((r) => [r.insight_id, r.last_viewed_at]));
  }

  /**
   * The project's most viewed live insights since `since` (PostHog's trending): how many users viewed each in that
   * window, most viewed first (then the latest view), with up to 3 of its viewers, the latest first.
   */
  async trending(projectId: number, since: Date, limit: number): Promise<{ insight: Insight; viewCount: number; viewerIds: number[] }[]> {
    const rows = await this.repo
      .createQueryBuilder('v')
      .innerJoin(Insight, 'i', 'i.id = v.insight_id AND i.project_id = v.project_id AND i.deleted = 0')
      .select('v.insight_id', 'insight_id')
      .addSelect('COUNT(*)', 'view_count')
      .addSelect('MAX(v.last_viewed_at)', 'latest')
      .where('v.project_id = :projectId AND v.last_viewed_at >= :since', { projectId, since })
      .groupBy('v.insight_id')
      .orderBy('view_count', 'DESC')
      .addOrderBy('latest', 'DESC')
      .addOrderBy('v.insight_id', 'DESC')
      .limit(limit)
      .getRawMany<{ insight_id: number; view_count: number }>();
    if (rows.length === 0) return [];
    const ids = rows.map((r) => Number(r.insight_id));
    const insights = new Map((await this.store.db.getRepository(Insight).findBy({ id: In(ids) })).map((i) => [i.id, i]));
    const views = await this.repo.find({ where: { project_id: projectId, insight_id: In(ids) }, order: { last_viewed_at: 'DESC', id: 'DESC' } });
    return rows.map((r) => {
      const id = Number(r.insight_id);
      const viewerIds = views.filter((v) => v.insight_id === id && v.last_viewed_at >= since).slice(0, TRENDING_VIEWERS).map((v) => v.user_id);
      return { insight: insights.get(id)!, viewCount: Number(r.view_count), viewerIds };
    });
  }

  /** The insights `userId` viewed most recently, newest view first, deleted ones left out (PostHog's my_last_viewed). */
  async recent(projectId: number, userId: number | null, count = MY_LAST_VIEWED_COUNT): Promise<{ insight: Insight; at: Date }[]> {
    if (userId === null) return [];
    const rows = await this.repo
      .createQueryBuilder('v')
      .innerJoinAndMapOne('v.insight', Insight, 'i', 'i.id = v.insight_id AND i.project_id = v.project_id AND i.deleted = 0')
      .where('v.project_id = :projectId AND v.user_id = :userId', { projectId, userId })
      .orderBy('v.last_viewed_at', 'DESC')
      .addOrderBy('v.id', 'DESC')
      .limit(count)
      .getMany();
    return rows.map((r) => ({ insight: (r as InsightViewed & { insight: Insight }).insight, at: r.last_viewed_at }));
  }
}
