import { Type } from 'typebox';

const Code = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'A 6-digit code of the authenticator app, or one of the recovery codes where allowed',
  examples: ['123456'],
});

export const TwoFactorSetupResponse = Type.Object(
  {
    secret: Type.String({ description: 'The TOTP seed in base32 (SHA-1, 6 digits, 30 s); shown only here' }),
    otpauth_url: Type.String({
      description: 'The same seed as an otpauth:// URI, for a QR code',
      examples: [
        'otpauth://totp/dbops:ada%40example.com?issuer=dbops&secret=...&algorithm=SHA1&digits=6&period=30',
      ],
    }),
  },
  { title: 'TwoFactorSetup' },
);

export const EnableTwoFactorBody = Type.Object(
  {
    code: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'A current 6-digit code of the seed from setup',
      examples: ['123456'],
    }),
  },
  { title: 'EnableTwoFactorRequest', additionalProperties: false },
);

export const RecoveryCodesResponse = Type.Object(
  {
    recovery_codes: Type.Array(Type.String({ examples: ['abcd-efgh-ijkl-mnop'] }), {
      minItems: 10,
      maxItems: 10,
      description: 'Ten one-time codes that stand in for a TOTP code; shown only here, stored hashed',
    }),
  },
  { title: 'RecoveryCodes' },
);

export const DisableTwoFactorBody = Type.Object(
  { code: Code },
  { title: 'DisableTwoFactorRequest', additionalProperties: false },
);

export const LoginSecondFactorBody = Type.Object(
  {
    partial_token: Type.String({
      minLength: 1,
      maxLength: 128,
      description: 'From POST /auth/login; valid 5 minutes, once, and for at most 5 wrong codes',
    }),
    code: Code,
  },
  { title: 'LoginSecondFactorRequest', additionalProperties: false },
);
