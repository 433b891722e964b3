import { combineActivities } from '../../activities';

describe('combineActivities', () => {
  it('merges the activity sets of the areas', async () => {
    const all = combineActivities({ a: async () => 1 }, { b: async () => 2 });
    expect(Object.keys(all).sort()).toEqual(['a', 'b']);
    expect(await all.b()).toBe(2);
  });

  it('refuses two activities of one name, which Temporal would silently shadow', () => {
    expect(() => combineActivities({ sendEmail: async () => 1 }, { sendEmail: async () => 2 })).toThrow('two activities are named "sendEmail"');
  });
});
