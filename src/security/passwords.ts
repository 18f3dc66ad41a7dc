// Argon2id password hashing (OWASP: m=19 MiB, t=2, p=1 by default; cheaper in tests through config).
import { type Algorithm, hash, verify } from '@node-rs/argon2';

// Algorithm is an ambient const enum, which erasable TypeScript cannot read: 2 is Argon2id.
const ARGON2ID = 2 as Algorithm;

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(passwordHash: string, password: string): Promise<boolean>;
  /** Spends the time of one verification, so an unknown e-mail answers as slowly as a known one. */
  verifyDummy(password: string): Promise<void>;
}

export async function createPasswordHasher(cost: {
  memoryKib: number;
  iterations: number;
}): Promise<PasswordHasher> {
  const options = {
    algorithm: ARGON2ID,
    memoryCost: cost.memoryKib,
    timeCost: cost.iterations,
    parallelism: 1,
  };
  const dummyHash = await hash('dummy password that matches nothing', options);
  return {
    hash: (password) => hash(password, options),
    async verify(passwordHash, password) {
      try {
        return await verify(passwordHash, password);
      } catch {
        return false;
      }
    },
    async verifyDummy(password) {
      await verify(dummyHash, password).catch(() => false);
    },
  };
}
