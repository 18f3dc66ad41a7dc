import { type ReactNode, useState } from 'react';

/**
 * A secret the service shows once (an API key, a signing secret, a SCIM token): the secret, a copy
 * button that says when it has copied, and a button that hides it for good.
 */
export function SecretOnce({
  label,
  secret,
  testId,
  copyLabel = 'Copy secret',
  onHide,
  children,
}: {
  /** The region's accessible name. */
  label: string;
  secret: string;
  testId: string;
  copyLabel?: string;
  onHide: () => void;
  /** What the secret is, said above it. */
  children: ReactNode;
}) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(secret);
    setCopied(true);
  };
  return (
    <section className="card secret" aria-label={label}>
      <p>{children}</p>
      <code data-testid={testId}>{secret}</code>
      <div className="actions">
        <button type="button" onClick={copy}>
          {copied ? 'Copied' : copyLabel}
        </button>
        <button type="button" className="secondary" onClick={onHide}>
          Done, hide it
        </button>
      </div>
    </section>
  );
}
