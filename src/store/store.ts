import fs from 'node:fs';
import { DataSource } from 'typeorm';
import { ormOptions } from '../../ormconfig';
import { PersonalApiKey, Project, ProjectSecretApiKey, User } from './entities';

/** The metadata store: projects, users, keys (and, in later issues, insights and endpoints). */
export class Store {
  private constructor(readonly db: DataSource) {}

  /** Opens (creating if needed) `<dataDir>/quarry.sqlite` and applies pending migrations. */
  static async open(dataDir: string, options: { migrations?: Parameters<typeof ormOptions>[1] } = {}): Promise<Store> {
    fs.mkdirSync(dataDir, { recursive: true });
    const db = new DataSource(ormOptions(dataDir, options.migrations));
    await db.initialize();
    await db.runMigrations({ transaction: 'each' });
    return new Store(db);
  }

  get users() {
    return this.db.getRepository(User);
  }
  get projects() {
    return this.db.getRepository(Project);
  }
  get personalKeys() {
    return this.db.getRepository(PersonalApiKey);
  }
  get secretKeys() {
    return this.db.getRepository(ProjectSecretApiKey);
  }

  async close(): Promise<void> {
    if (this.db.isInitialized) await this.db.destroy();
  }
}
