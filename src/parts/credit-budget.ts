/**
 * The credit plans' part (issue 30 §2): an endpoint with a `plan` gets its credit meter,
 * shared by its roles, whose monthly thresholds become `credit-budget` events (the logger
 * and the exporters read them). An endpoint without one gets nothing: its calls are not priced.
 */
import { CreditMeter } from '../admission/credit-meter.js';
import type { PoolEvents } from '../api/events.js';
import type { Clock } from '../clock.js';
import type { NormalizedEndpoint } from '../config/normalize.js';

export function creditMeterOf(endpoint: NormalizedEndpoint, clock: Clock, events: PoolEvents): CreditMeter | undefined {
  if (endpoint.plan === undefined) return undefined;
  const meter = new CreditMeter(endpoint.plan, clock);
  const endpointId = endpoint.id;
  meter.listener = (threshold, spentCredits, creditsPerMonth, refusing) =>
    events.emit('credit-budget', { atMs: clock.now(), endpointId, threshold, spentCredits, creditsPerMonth, refusing });
  return meter;
}
