/** Time left until `until`, in words a person reads at a glance ("1 h 5 min left", "expired"). */
export function remainingText(until: string, now: Date): string {
  const ms = new Date(until).getTime() - now.getTime();
  if (ms <= 0) return 'expired';
  const minutes = Math.ceil(ms / 60_000);
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours === 0) return `${minutes} min left`;
  return rest === 0 ? `${hours} h left` : `${hours} h ${rest} min left`;
}
