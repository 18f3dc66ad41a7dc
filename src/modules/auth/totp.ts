// TOTP (RFC 6238) as this service uses it: SHA-1, 6 digits, 30-second steps, one step of skew either
// way, through the `otpauth` library. Which step a code matched is returned, so that the caller can
// store it and refuse that step and every earlier one afterwards (replay).
import { Secret, TOTP } from 'otpauth';
import { safeEqual } from '../../security/tokens.ts';

const PERIOD_SECONDS = 30;
const DIGITS = 6;
const SKEW_STEPS = 1;
const ISSUER = 'dbops';

function totpOf(secretBase32: string, label = ''): TOTP {
  return new TOTP({
    issuer: ISSUER,
    label,
    algorithm: 'SHA1',
    digits: DIGITS,
    period: PERIOD_SECONDS,
    secret: Secret.fromBase32(secretBase32),
  });
}

/** A new random seed (160 bits, RFC 4226's recommended length), base32 as authenticator apps take it. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The `otpauth://totp/...` URI an authenticator app reads from a QR code. */
export function otpauthUrl(secretBase32: string, account: string): string {
  return totpOf(secretBase32, account).toString();
}

export function isTotpCode(code: string): boolean {
  return /^\d{6}$/.test(code);
}

/**
 * The time step a code is valid for at `now` (±1 step), skipping steps at or before `lastStep`;
 * null when none matches. The newest steps are tried first.
 */
export function matchTotpStep(
  secretBase32: string,
  code: string,
  now: Date,
  lastStep: number | null,
): number | null {
  if (!isTotpCode(code)) return null;
  const totp = totpOf(secretBase32);
  const current = totp.counter({ timestamp: now.getTime() });
  for (let step = current + SKEW_STEPS; step >= current - SKEW_STEPS; step--) {
    if (lastStep !== null && step <= lastStep) break;
    if (safeEqual(totp.generate({ timestamp: step * PERIOD_SECONDS * 1000 }), code)) return step;
  }
  return null;
}
