// usage: node evaluate.mjs < cases.json
// Each case: {identity: [policy], boundary: policy|null, scps: [[policy]], rcps: [[policy]],
//             request: {action, resource, context}}. Prints one line per case:
// the simulator's decision (Allowed, ExplicitlyDenied, ImplicitlyDenied) or ERROR and why.
import { runSimulation } from '@cloud-copilot/iam-simulate';
import fs from 'node:fs';

const account = '111122223333';
const cases = JSON.parse(fs.readFileSync(0, 'utf8'));
const level = (policies, i) => ({ orgIdentifier: `level-${i}`, policies: policies.map((p, j) => ({ name: `p${i}-${j}`, policy: p })) });
const out = [];
for (const c of cases) {
  const sim = {
    identityPolicies: c.identity.map((p, i) => ({ name: `identity-${i}`, policy: p })),
    serviceControlPolicies: (c.scps || []).map(level),
    resourceControlPolicies: (c.rcps || []).map(level),
    request: {
      principal: `arn:aws:iam::${account}:role/Karpenter`,
      action: c.request.action,
      resource: { resource: c.request.resource, accountId: account },
      contextVariables: c.request.context || {},
    },
  };
  if (c.boundary) sim.permissionBoundaryPolicies = [{ name: 'boundary', policy: c.boundary }];
  const res = await runSimulation(sim, {});
  if (res.resultType === 'error') out.push('ERROR ' + JSON.stringify(res.errors).slice(0, 300));
  else out.push(res.overallResult);
}
console.log(out.join('\n'));
