import { activityEntryRest, userBasic, type ActivityView } from './activity';

const view = (user: ActivityView['user']): ActivityView => ({
  id: 7,
  user,
  activity: 'updated',
  scope: 'Cohort',
  item_id: '3',
  detail: { name: 'c', short_id: null, type: null, changes: null, trigger: null },
  created_at: '2024-01-01T00:00:00Z',
  is_system: user === null,
  unread: false,
});

describe('activityEntryRest (the entry of PostHog’s activity routes)', () => {
  it('has six keys; the author is its first name and email', () => {
    const entry = activityEntryRest(view(userBasic({ id: 1, name: 'Ada', email: 'ada@example.com' })));
    expect(entry).toEqual({
      user: { first_name: 'Ada', email: 'ada@example.com' },
      activity: 'updated',
      scope: 'Cohort',
      item_id: '3',
      detail: { name: 'c', short_id: null, type: null, changes: null, trigger: null },
      created_at: '2024-01-01T00:00:00Z',
    });
  });

  it('an entry without a user (a project key’s change) has PostHog’s system author', () => {
    expect(activityEntryRest(view(null)).user).toEqual({ first_name: 'System', email: null, is_system: true });
  });
});
