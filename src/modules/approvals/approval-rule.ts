// What an operation needs before it runs: the project policy's rule for the operation on the
// environment it writes to, tightened when that connection is protected (docs/contract.md §6). Protection is a
// floor, not a rule of its own: at least one approval, never by the requester; a policy may ask
// for more approvals, never fewer. Pure, so the gate and its tests share one reading.
import type { Approval, Connection, PolicyOperation, PolicyRule } from '../../store/tables.ts';
import { DEFAULT_POLICY } from '../projects/projects.schemas.ts';

/** The connection an operation writes to, as far as approvals care. */
export type WriteTarget = Pick<Connection, 'environment' | 'protected'>;

/** What approving the operation takes. */
export type ApprovalRule = Pick<PolicyRule, 'required_approvals' | 'allow_self_approval'>;

/** The rule of the policy that applies to this operation on this environment, if any. */
export function ruleFor(
  policy: PolicyRule[] | null,
  operation: PolicyOperation,
  environment: WriteTarget['environment'],
): PolicyRule | undefined {
  return (policy ?? DEFAULT_POLICY).find(
    (rule) => rule.operation === operation && rule.environments.includes(environment),
  );
}

/** What the operation needs, or undefined when it may run without approval. */
export function requiredApproval(
  policy: PolicyRule[] | null,
  operation: PolicyOperation,
  target: WriteTarget,
): ApprovalRule | undefined {
  const rule = ruleFor(policy, operation, target.environment);
  if (!target.protected) return rule;
  return { required_approvals: Math.max(1, rule?.required_approvals ?? 1), allow_self_approval: false };
}

/** Whether an approval asked (or granted) under its own terms is worth as much as `rule` asks. */
export function satisfies(
  approval: Pick<Approval, 'required_approvals' | 'allow_self_approval'>,
  rule: ApprovalRule,
): boolean {
  return (
    approval.required_approvals >= rule.required_approvals &&
    (rule.allow_self_approval || !approval.allow_self_approval)
  );
}
