// Every kind of change the diff reports, and its severity. Fixed by docs/contract.md §6: table or column dropped
// is critical, column type altered is moderate, column or index added is minor. The rest follows
// the grading schema-diff tools share (a change that can break writes or reads is moderate, an
// addition or a relaxation minor); each choice and its reason are below.
//
// | kind                           | severity | why                                                     |
// |--------------------------------|----------|---------------------------------------------------------|
// | table_added                    | minor    | convention                                              |
// | table_removed                  | critical | fixed: data is gone                                     |
// | table_comment_changed          | minor    | a comment changes no behaviour                          |
// | column_added                   | minor    | fixed                                                   |
// | column_removed                 | critical | fixed: data is gone                                     |
// | column_type_changed            | moderate | fixed                                                   |
// | column_not_null_added          | moderate | writes that passed now fail                             |
// | column_not_null_dropped        | minor    | nullability relaxed                                     |
// | column_default_changed         | minor    | convention                                              |
// | column_default_reformatted     | cosmetic | same default, printed differently (not in the summary)  |
// | column_identity_changed        | moderate | decides which INSERTs succeed (ALWAYS refuses values)   |
// | column_auto_increment_changed  | moderate | same, MySQL                                             |
// | column_generated_changed       | moderate | values are computed, or no longer, or differently       |
// | column_on_update_changed       | minor    | a default applied on UPDATE (MySQL)                     |
// | column_collation_changed       | moderate | changes ordering, equality and the indexes built on it  |
// | column_comment_changed         | minor    | convention                                              |
// | primary_key_added/removed/changed | moderate | convention                                              |
// | unique_constraint_added/removed/changed | moderate | convention                                              |
// | check_constraint_added/changed | moderate | added: a changed rule is a new rule                     |
// | check_constraint_removed       | moderate | an integrity rule gone, like a foreign key dropped      |
// | exclusion_constraint_*         | moderate | as unique and check constraints                         |
// | foreign_key_added              | minor    | convention                                              |
// | foreign_key_removed/changed    | moderate | dropped: other actions or targets change it             |
// | index_added, index_removed     | minor    | fixed (added), convention (dropped)                     |
// | index_changed                  | minor    | an index dropped and another added                      |
// | constraint_renamed, index_renamed | minor    | same definition under another name                      |
// | enum_values_added              | minor    | new values only: every stored value stays valid         |
// | enum_values_changed            | moderate | values removed or reordered: stored values or ORDER BY  |
// | sequence_changed               | minor    | bounds, step, cycling or ownership of a column's serial |
// | column_identity_options_changed | minor    | an identity's bounds, step or cycling, as a sequence's  |
// | constraint_validity_changed    | minor    | the rule is the same; only old rows are (not) checked   |
// | column_visibility_changed      | minor    | SELECT * shows or hides it (MySQL INVISIBLE)            |
// | table_options_changed          | minor    | storage engine, default collation or row format (MySQL) |
// | row_security_changed           | moderate | which rows each role sees                               |
// | table_partitioning_changed     | moderate | rows are routed elsewhere; bounds refuse other rows     |
// | table_inheritance_changed      | moderate | which rows queries on the parent see                    |
// | constraint_comment_changed     | minor    | as a column's comment                                   |
// | index_comment_changed          | minor    | as a column's comment                                   |

export type Severity = 'critical' | 'moderate' | 'minor' | 'cosmetic';

export const CHANGE_SEVERITY = {
  table_added: 'minor',
  table_removed: 'critical',
  table_comment_changed: 'minor',
  column_added: 'minor',
  column_removed: 'critical',
  column_type_changed: 'moderate',
  column_not_null_added: 'moderate',
  column_not_null_dropped: 'minor',
  column_default_changed: 'minor',
  column_default_reformatted: 'cosmetic',
  column_identity_changed: 'moderate',
  column_auto_increment_changed: 'moderate',
  column_generated_changed: 'moderate',
  column_on_update_changed: 'minor',
  column_collation_changed: 'moderate',
  column_comment_changed: 'minor',
  primary_key_added: 'moderate',
  primary_key_removed: 'moderate',
  primary_key_changed: 'moderate',
  unique_constraint_added: 'moderate',
  unique_constraint_removed: 'moderate',
  unique_constraint_changed: 'moderate',
  check_constraint_added: 'moderate',
  check_constraint_removed: 'moderate',
  check_constraint_changed: 'moderate',
  exclusion_constraint_added: 'moderate',
  exclusion_constraint_removed: 'moderate',
  exclusion_constraint_changed: 'moderate',
  foreign_key_added: 'minor',
  foreign_key_removed: 'moderate',
  foreign_key_changed: 'moderate',
  index_added: 'minor',
  index_removed: 'minor',
  index_changed: 'minor',
  constraint_renamed: 'minor',
  index_renamed: 'minor',
  enum_values_added: 'minor',
  enum_values_changed: 'moderate',
  sequence_changed: 'minor',
  column_identity_options_changed: 'minor',
  constraint_validity_changed: 'minor',
  column_visibility_changed: 'minor',
  table_options_changed: 'minor',
  row_security_changed: 'moderate',
  table_partitioning_changed: 'moderate',
  table_inheritance_changed: 'moderate',
  constraint_comment_changed: 'minor',
  index_comment_changed: 'minor',
} as const satisfies Record<string, Severity>;

export type ChangeKind = keyof typeof CHANGE_SEVERITY;

const RANK: Record<Severity, number> = { cosmetic: 0, minor: 1, moderate: 2, critical: 3 };

/** The highest of the given severities, or null for none. */
export function highestSeverity(severities: Iterable<Severity>): Severity | null {
  let highest: Severity | null = null;
  for (const severity of severities) {
    if (highest === null || RANK[severity] > RANK[highest]) highest = severity;
  }
  return highest;
}
