import { createTestDb } from './testing';
test('smoke', async () => {
  const db = await createTestDb();
  const qs = [
    "select event, count() from events group by event order by event",
    "select properties.$browser as b, count() as c from events group by b order by b",
    "select toStartOfDay(timestamp) as d, count() from events group by d order by d",
    "select person.properties.plan, person_id, distinct_id from events order by timestamp",
    "select * from events limit 2",
    "select event, row_number() over (partition by distinct_id order by timestamp) from events",
    "with x as (select distinct_id from events) select count() from x",
    "select 1 as a union all select 2",
    "select count() from events where properties.price > 9",
    "select {variables.x}", 
  ];
  for (const q of qs) {
    try {
      const r = await db.query(q, { variables: { x: 'hi' } });
      console.log(q, '\n', r.compiled.sql, r.compiled.params, '\n', JSON.stringify(r.results), JSON.stringify(r.types), r.compiled.hogql);
    } catch (e) { console.log(q, 'ERR', (e as Error).message); }
  }
  db.close();
});
