import { describe, expect, it } from 'vitest';
import type { Approval } from '../api/types.ts';
import { approvalChoices, approvalCount } from './approval.ts';
import { runIdInDetail } from './errors.ts';
import { subjectPath } from './subject.ts';

const RUN = '0b7e3c1a-4d2f-4a7b-9c1e-2f3a4b5c6d7e';

describe('subject links', () => {
  it('leads each kind of subject to its page in the project', () => {
    const id = 'abc';
    const paths = (
      ['patch', 'migration', 'seed_scenario', 'anonymize_config', 'bridge', 'access_request'] as const
    ).map((kind) => subjectPath('p1', { kind, id }));
    expect(paths).toEqual([
      '/projects/p1/patches/abc',
      '/projects/p1/migrations/abc',
      '/projects/p1/seeds?open=abc',
      '/projects/p1/anonymize?open=abc',
      '/projects/p1/bridge',
      '/projects/p1/access-requests',
    ]);
  });
});

describe('the decisions an approval offers', () => {
  const approval = (over: Partial<Approval> = {}) =>
    ({
      status: 'pending',
      can_decide: false,
      requested_by: 'asker',
      decisions: [],
      required_approvals: 2,
      ...over,
    }) as Approval;

  it('offers Approve and Reject exactly where the server says the reader can decide', () => {
    const admin = { id: 'admin', org_role: 'admin' } as const;
    expect(approvalChoices(approval({ can_decide: true }), admin)).toEqual({
      approve: true,
      reject: true,
      own: false,
    });
    expect(approvalChoices(approval(), admin)).toEqual({ approve: false, reject: false, own: false });
  });

  it('lets an organization admin withdraw their own pending request, never approve it', () => {
    const owner = { id: 'asker', org_role: 'owner' } as const;
    expect(approvalChoices(approval(), owner)).toEqual({ approve: false, reject: true, own: true });
    expect(approvalChoices(approval({ status: 'approved' }), owner).reject).toBe(false);
    const member = { id: 'asker', org_role: 'member' } as const;
    expect(approvalChoices(approval(), member)).toEqual({ approve: false, reject: false, own: true });
  });

  it('counts the approving decisions against the number required', () => {
    const decided = approval({
      decisions: [
        { user_id: 'a', decision: 'approve', comment: null, decided_at: '2026-01-01T00:00:00Z' },
        { user_id: 'b', decision: 'reject', comment: null, decided_at: '2026-01-01T00:00:00Z' },
      ],
    });
    expect(approvalCount(decided)).toBe('1 of 2 approvals');
  });
});

describe('a refusal naming a run', () => {
  it('finds the run a 409 names, and nothing in other details', () => {
    expect(
      runIdInDetail(`Run ${RUN} of this patch is awaiting approval; wait for it to end or cancel it`),
    ).toBe(RUN);
    expect(
      runIdInDetail('The patch is executed; only a draft or failed patch can be edited'),
    ).toBeUndefined();
  });
});
