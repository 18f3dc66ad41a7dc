/** An API error's `detail`, shown next to the action that failed and announced to screen readers. */
export function ErrorText({ error }: { error: unknown }) {
  if (!error) return null;
  const text = error instanceof Error ? error.message : String(error);
  return (
    <p className="error" role="alert">
      {text}
    </p>
  );
}
