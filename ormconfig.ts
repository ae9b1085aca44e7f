import path from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import { ENTITIES } from './src/store/entities';
import { MIGRATIONS } from './src/store/migrations';

/**
 * TypeORM options for the metadata store: one SQLite file in the data directory, opened through
 * better-sqlite3. The schema is created and upgraded by migrations at start; `synchronize` is never on.
 */
export function ormOptions(dataDir: string, migrations: DataSourceOptions['migrations'] = MIGRATIONS): DataSourceOptions {
  return {
    type: 'better-sqlite3',
    database: path.join(dataDir, 'quarry.sqlite'),
    entities: ENTITIES,
    migrations,
    migrationsRun: false,
    synchronize: false,
    logging: false,
    prepareDatabase: (db: { pragma(s: string): unknown }) => {
      db.pragma('journal_mode = WAL');
      db.pragma('foreign_keys = ON');
      db.pragma('busy_timeout = 5000');
    },
  };
}
