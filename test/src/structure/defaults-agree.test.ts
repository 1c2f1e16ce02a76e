import { it } from 'node:test';
import assert from 'node:assert/strict';
import { defaultOf, ENGINE_SETTINGS, instanceLiveWithinMs } from '@nudge/engine';
import { DEFAULT_INSTANCE_LIVE_WITHIN_MS } from '@nudge/http';

// A default that a package states as a literal (to load no code of another) must equal the one
// computed from the settings table.
it("the HTTP layer's default liveness window is the engine's at the default lease", () => {
  assert.equal(DEFAULT_INSTANCE_LIVE_WITHIN_MS, instanceLiveWithinMs(defaultOf(ENGINE_SETTINGS.leaseMs)));
});
