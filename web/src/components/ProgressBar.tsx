import { percentDone } from '../lib/poll.ts';

export function ProgressBar({
  progress,
}: {
  progress: { done: number; total: number | null; unit: string };
}) {
  const percent = percentDone(progress);
  const text = `${progress.done}${progress.total !== null ? ` of ${progress.total}` : ''} ${progress.unit}`;
  return (
    <div className="progress">
      <progress max={100} value={percent} aria-label={`Progress: ${text}`} />
      <span>{text}</span>
    </div>
  );
}
