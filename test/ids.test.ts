import { isId, newId } from '../lib/ids';

describe('newId', () => {
  it('mints prefixed ULIDs that are unique and sort in creation order, across refills of the random pool', () => {
    // 5,000 ids draw far more than one 4 KiB pool of randomness.
    const ids = Array.from({ length: 5_000 }, () => newId('prod'));
    expect(ids.every((id) => isId(id, 'prod'))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('draws fresh, uniformly spread randomness for every new millisecond', () => {
    jest.useFakeTimers({ now: Date.UTC(2030, 0, 1) });
    try {
      // Within one millisecond the monotonic factory only increments, so step the clock to force fresh draws;
      // a broken byte-to-character mapping shows up as a narrow set of leading random characters.
      const leading = new Set<string>();
      for (let i = 0; i < 2_000; i += 1) {
        jest.advanceTimersByTime(1);
        leading.add(newId('evt').slice(-16, -15));
      }
      expect(leading.size).toBe(32);
    } finally {
      jest.useRealTimers();
    }
  });
});
