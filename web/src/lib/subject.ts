// What a run or an approval is about (its `subject`), as the web app names and links it.
import type { Subject } from '../api/types.ts';

const KIND_LABEL: Record<Subject['kind'], string> = {
  patch: 'patch',
  migration: 'migration',
  seed_scenario: 'seed scenario',
  anonymize_config: 'anonymization config',
  bridge: 'copy',
  access_request: 'access request',
};

/** The kind as a person reads it ("seed scenario"). */
export function subjectKindLabel(kind: Subject['kind']): string {
  return KIND_LABEL[kind];
}

/**
 * The page of the subject in the project: a patch's or migration's own page; the seed scenario or
 * anonymization config opened on its page; the copy page; the access requests.
 */
export function subjectPath(projectId: string, subject: Pick<Subject, 'kind' | 'id'>): string {
  const project = `/projects/${projectId}`;
  switch (subject.kind) {
    case 'patch':
      return `${project}/patches/${subject.id}`;
    case 'migration':
      return `${project}/migrations/${subject.id}`;
    case 'seed_scenario':
      return `${project}/seeds?open=${subject.id}`;
    case 'anonymize_config':
      return `${project}/anonymize?open=${subject.id}`;
    case 'bridge':
      return `${project}/bridge`;
    case 'access_request':
      return `${project}/access-requests`;
  }
}
