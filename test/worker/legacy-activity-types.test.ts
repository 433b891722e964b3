import { Sequelize } from 'sequelize';
import { createActivities } from '../../activities';
import { LEGACY_ACTIVITY_TYPES } from '../../workflows/legacy-activity-types';
import { testActivityDeps } from '../helpers/worker';

/** Runs that began their fulfillment before the rename schedule the legacy types (docs/decisions/vocabulary.md). */
it('the worker answers each renamed activity under its legacy type too, with the same function', async () => {
  const sequelize = new Sequelize(process.env.DATABASE_URL!, { dialect: 'postgres', logging: false });
  try {
    const activities = createActivities(testActivityDeps(sequelize)) as Record<string, unknown>;
    for (const [name, legacy] of Object.entries(LEGACY_ACTIVITY_TYPES)) {
      expect(typeof activities[name]).toBe('function');
      expect(activities[legacy]).toBe(activities[name]);
    }
  } finally {
    await sequelize.close();
  }
});
