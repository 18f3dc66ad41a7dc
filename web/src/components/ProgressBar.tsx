import { percentDone } from '../lib/poll.ts';

export function ProgressBar({
  progress,
}: {
  progress: { done: number; total: number | null; unit: string };
}) {
  const percent = percentDone(progress);
  // The unit comes plural ("rows", "statements"): one of one is "1 of 1 row".
  const counted = progress.total ?? progress.done;
  const unit = counted === 1 ? progress.unit.replace(/s$/, '') : progress.unit;
  const text = `${progress.done}${progress.total !== null ? ` of ${progress.total}` : ''} ${unit}`;
  return (
    <div className="progress">
      <progress max={100} value={percent} aria-label={`Progress: ${text}`} />
      <span>{text}</span>
    </div>
  );
}
