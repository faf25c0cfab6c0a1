/** An endpoint's `plan` and `cost` resolved: the provider's table and the user's costs over it. */
import type { CreditPlan } from '../admission/credit-meter.js';
import type { ConfigIssue } from '../errors/transport-error.js';
import type { EndpointConfig } from './types.js';

export function resolveCreditPlan(endpoint: EndpointConfig, path: string, issues: ConfigIssue[]): CreditPlan | undefined {
  const { plan, cost } = endpoint;
  if (plan === undefined) {
    if (cost !== undefined) issues.push({ path: `${path}.cost`, message: 'needs plan (creditsPerSecond or creditsPerMonth) to count against' });
    return undefined;
  }
  if (plan.creditsPerSecond === undefined && plan.creditsPerMonth === undefined) {
    issues.push({ path: `${path}.plan`, message: 'must set creditsPerSecond or creditsPerMonth' });
  }
  if (plan.onExhausted === 'refuse' && plan.creditsPerMonth === undefined) {
    issues.push({ path: `${path}.plan.onExhausted`, message: "'refuse' needs plan.creditsPerMonth" });
  }
  return {
    table: plan.table,
    cost: cost ?? {},
    creditsPerSecond: plan.creditsPerSecond,
    creditsPerMonth: plan.creditsPerMonth,
    onExhausted: plan.onExhausted ?? 'continue',
  };
}
