import { it } from 'node:test';
import assert from 'node:assert/strict';
import { describeStore, later } from './store-fixture.js';

const daily = { name: 'nightly', cron: '0 3 * * *', timezone: 'Europe/Paris', kind: 'report' };

describeStore('schedules', (t) => {
  it('registers a new schedule at now, and keeps the last tick of a known one', async () => {
    const now = new Date('2026-05-01T10:00:00.000Z');
    const [first] = await t.store.registerSchedules([daily], now);
    assert.equal(first?.lastTickAt.toISOString(), now.toISOString());
    assert.equal(first?.nextTickAt, null);
    const [again] = await t.store.registerSchedules(
      [{ ...daily, cron: '0 4 * * *' }],
      later(now, 86_400_000),
    );
    assert.equal(again?.lastTickAt.toISOString(), now.toISOString(), 'the last tick is kept');
    assert.equal(again?.cron, '0 4 * * *', 'the declaration is updated');
    assert.deepEqual(
      (await t.store.listSchedules()).map((s) => s.name),
      ['nightly'],
    );
  });

  it('advances the last tick forward only, with the next tick', async () => {
    const now = new Date('2026-05-01T10:00:00.000Z');
    await t.store.registerSchedules([daily, { ...daily, name: 'other' }], now);
    const tick = new Date('2026-05-02T01:00:00.000Z');
    const next = new Date('2026-05-03T01:00:00.000Z');
    await t.store.advanceSchedule({ name: 'nightly', tickAt: tick, nextTickAt: next });
    await t.store.advanceSchedule({ name: 'nightly', tickAt: now, nextTickAt: next });
    const [nightly, other] = await t.store.listSchedules();
    assert.equal(nightly?.lastTickAt.toISOString(), tick.toISOString(), 'an older tick never moves it back');
    assert.equal(nightly?.nextTickAt?.toISOString(), next.toISOString());
    assert.equal(other?.lastTickAt.toISOString(), now.toISOString(), 'other schedules are untouched');
  });
});
