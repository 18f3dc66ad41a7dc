// What the bridge needs of anonymization (docs/contract.md §9.3 `anonymize_config_id`), as a small interface the
// bridge owns: the anonymization module implements it (modules/anonymize/bridge-transforms.ts) and
// bridge.module.ts hands it in, so the bridge's service and run never read configs or compile
// transformers themselves.
import type { Actor } from '../../core/actors.ts';
import type { RowBatch } from '../../engine/rows/copy-text.ts';
import type { SchemaModel } from '../../engine/schema/model.ts';
import type { Connection } from '../../store/tables.ts';

/** The compiled transforms of one config for one source, by table. */
export interface InFlightAnonymization {
  /**
   * The transform of the batches of `table` (as the source names it) streamed with `columns`, in
   * order and with the same boundaries, or null when no rule touches it.
   */
  forTable(
    table: string,
    columns: readonly string[],
  ): ((batches: AsyncIterable<RowBatch>) => AsyncIterable<RowBatch>) | null;
  /** Releases what the transforms hold (worker threads); called once the copy is over. */
  close(): Promise<void>;
}

/** What `warmUp` started ahead of `open` (worker threads loading their modules); closed if never opened. */
export interface WarmTransforms {
  close(): Promise<void>;
}

export interface BridgeAnonymizer {
  /**
   * When a run with a config starts, before anything is read: starts what the transforms will
   * run on, so that its start-up overlaps the run's reading of both schemas.
   */
  warmUp(): WarmTransforms;
  /**
   * When a copy is asked for: the config (404 when unknown or of another project), its rules
   * checked against the source's schema (422 naming what does not match), and in strict mode the
   * source's personal columns no rule covers (409 naming them). Answers the config's binding (a
   * hash of its rules and its key's id), which the approval and the run are bound to.
   */
  check(
    actor: Actor,
    projectId: string,
    configId: string,
    source: { connection: Connection; model: SchemaModel },
  ): Promise<string>;
  /**
   * When the run starts: the transforms, compiled with the config's key, on what `warm` started
   * (which the answer then owns). Fails the run (RunFailed, nothing written) when the config is
   * gone, changed since `binding`, or no longer fits the source.
   */
  open(
    configId: string,
    binding: string,
    source: SchemaModel,
    warm?: WarmTransforms,
  ): Promise<InFlightAnonymization>;
}
