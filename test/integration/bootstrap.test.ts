import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hashKey } from '../../src/auth/key-material';
import { MIGRATIONS } from '../../src/store/migrations';
import { Store } from '../../src/store/store';
import { gql, startServer, TEST_KEY } from '../helpers/server';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-boot-'));

describe('bootstrap', () => {
  it('with QUARRY_BOOTSTRAP_KEY: that value is the key, with *, and project 1 exists', async () => {
    const srv = await startServer();
    try {
      expect(srv.server.bootstrapKey).toBe(TEST_KEY);
      const viewer = await gql(srv, '{ viewer { principalType userId scopes projects { id name timezone weekStartDay } } }');
      expect(viewer.body.data.viewer).toEqual({
        principalType: 'personal',
        userId: 1,
        scopes: ['*'],
        projects: [{ id: 1, name: 'Default project', timezone: 'UTC', weekStartDay: 0 }],
      });
      const keys = await srv.api('GET', '/api/personal_api_keys/');
      expect(keys.body).toMatchObject([{ label: 'bootstrap', scopes: ['*'], scoped_teams: null, mask_value: `phx_...${TEST_KEY.slice(-4)}` }]);
      expect(keys.body).toHaveLength(1);
    } finally {
      await srv.close();
    }
  });

  it('without QUARRY_BOOTSTRAP_KEY: a random phx_ key is created and works', async () => {
    const srv = await startServer({ env: { QUARRY_BOOTSTRAP_KEY: undefined as unknown as string } });
    try {
      const key = srv.server.bootstrapKey!;
      expect(key).toMatch(/^phx_[2-9A-HJ-NP-Za-km-z]{43}$/);
      expect((await srv.api('GET', '/api/projects/', undefined, TEST_KEY)).status).toBe(401);
      const r = await srv.api('GET', '/api/projects/', undefined, key);
      expect(r.status).toBe(200);
      expect(r.body.results.map((p: { id: number }) => p.id)).toEqual([1]);
    } finally {
      await srv.close();
    }
  });

  // Regression: QUARRY_BOOTSTRAP_KEY='' (exported but empty, as .env files do) failed config validation
  // ("must be at least 32 characters") instead of meaning "no key given".
  it("regression: QUARRY_BOOTSTRAP_KEY='' starts with a random key", async () => {
    const srv = await startServer({ env: { QUARRY_BOOTSTRAP_KEY: '' } });
    try {
      expect(srv.server.bootstrapKey).toMatch(/^phx_/);
      expect((await srv.api('GET', '/api/projects/', undefined, srv.server.bootstrapKey!)).status).toBe(200);
    } finally {
      await srv.close();
    }
  });

  it('restart on an existing data dir keeps projects and keys and creates no new key', async () => {
    const first = await startServer();
    const dataDir = first.dataDir;
    const project = (await first.api('POST', '/api/projects/', { name: 'Kept', timezone: 'Europe/Paris' })).body;
    const extra = (await first.api('POST', '/api/personal_api_keys/', { label: 'kept', scopes: ['project:read'] })).body;
    const secret = (await first.api('POST', `/api/projects/${project.id}/project_secret_api_keys/`, { scopes: ['endpoint:read'] })).body;
    await first.close();

    // A different bootstrap key on restart must not be applied: the store is not empty.
    const other = 'phx_another_bootstrap_key_abcdefghijklmnopqrst';
    const second = await startServer({ dataDir, env: { QUARRY_BOOTSTRAP_KEY: other } });
    try {
      expect(second.server.bootstrapKey).toBeUndefined();
      expect((await second.api('GET', '/api/projects/', undefined, other)).status).toBe(401);
      expect((await second.api('GET', `/api/projects/${project.id}/`)).body).toEqual(project);
      const keys = await second.api('GET', '/api/personal_api_keys/');
      expect(keys.body.map((k: { label: string }) => k.label).sort()).toEqual(['bootstrap', 'kept']);
      expect((await second.api('GET', '/api/projects/', undefined, extra.value)).status).toBe(200);
      const v = await gql(second, '{ viewer { principalType } }', undefined, secret.value);
      expect(v.body.data.viewer.principalType).toBe('project_secret');
      expect((await second.server.services.store.users.count())).toBe(1);
      expect((await second.api('GET', '/api/projects/')).body.count).toBe(2);
    } finally {
      await second.close();
    }
  });

  it('a second server on a held data dir is refused', async () => {
    const srv = await startServer();
    try {
      // The lock names this process; simulate another live process holding it.
      fs.writeFileSync(path.join(srv.dataDir, 'server.json'), JSON.stringify({ pid: process.ppid, url: 'http://127.0.0.1:1' }));
      await expect(startServer({ dataDir: srv.dataDir })).rejects.toThrow(/A Quarry server \(pid \d+, http:\/\/127\.0\.0\.1:1\) holds/);
    } finally {
      fs.writeFileSync(path.join(srv.dataDir, 'server.json'), JSON.stringify({ pid: process.pid, url: srv.url }));
      await srv.close();
    }
    expect(fs.existsSync(path.join(srv.dataDir, 'server.json'))).toBe(false);
  });

  it('a stale lock from a dead process does not block a start', async () => {
    const dataDir = tmp();
    fs.writeFileSync(path.join(dataDir, 'server.json'), JSON.stringify({ pid: 2 ** 22 + 12345, url: 'http://127.0.0.1:1' }));
    const srv = await startServer({ dataDir });
    await srv.close();
  });
});

describe('migrations upgrade an older store', () => {
  it('a store at migration 1 gains the project settings columns with their defaults', async () => {
    const dataDir = tmp();
    const old = await Store.open(dataDir, { migrations: [MIGRATIONS[0]] });
    await old.db.query(`INSERT INTO users (email, name) VALUES ('old@localhost', 'Old')`);
    await old.db.query(`INSERT INTO projects (name, timezone, week_start_day, api_token) VALUES ('Legacy', 'Europe/Madrid', 1, 'phc_legacytoken')`);
    await old.db.query(
      `INSERT INTO personal_api_keys (id, user_id, label, secure_value, mask_value, scopes, scoped_teams) VALUES ('k1', 1, 'old', ?, 'phx_...mnop', '["*"]', NULL)`,
      [hashKey(TEST_KEY)],
    );
    const columns = (await old.db.query(`PRAGMA table_info(projects)`)).map((c: { name: string }) => c.name);
    expect(columns).not.toContain('test_account_filters');
    await old.close();

    const srv = await startServer({ dataDir });
    try {
      expect(srv.server.bootstrapKey).toBeUndefined(); // the store held a user: no bootstrap
      const r = await srv.api('GET', '/api/projects/1/');
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        id: 1,
        name: 'Legacy',
        timezone: 'Europe/Madrid',
        week_start_day: 1,
        api_token: 'phc_legacytoken',
        test_account_filters: [],
        path_cleaning_filters: [],
        person_display_name_properties: null,
        anonymize_ips: false,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
      // Created_at written by SQLite's datetime('now') is UTC; it must read back as roughly now.
      expect(Math.abs(Date.parse(r.body.created_at) - Date.now())).toBeLessThan(5 * 60_000);
      const patched = await srv.api('PATCH', '/api/projects/1/', { test_account_filters: [{ key: 'is_internal', value: true }] });
      expect(patched.body.test_account_filters).toEqual([{ key: 'is_internal', value: true }]);
    } finally {
      await srv.close();
    }
    const db = new Database(path.join(dataDir, 'quarry.sqlite'), { readonly: true });
    try {
      const applied = (db.prepare('SELECT name FROM migrations ORDER BY id').all() as { name: string }[]).map((m) => m.name);
      expect(applied).toEqual(MIGRATIONS.map((m) => new m().name));
    } finally {
      db.close();
    }
  });

  it('opening an up-to-date store again applies nothing', async () => {
    const dataDir = tmp();
    (await Store.open(dataDir)).close();
    const again = await Store.open(dataDir);
    try {
      const rows = await again.db.query('SELECT COUNT(*) AS n FROM migrations');
      expect(rows[0].n).toBe(MIGRATIONS.length);
    } finally {
      await again.close();
    }
  });
});
