// The 32-byte key behind AES-256-GCM and every HMAC of the service. From SECRET_KEY when set; on the
// embedded store it is generated once into DATA_DIR (mode 0600) so a quickstart needs no setup.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseSecretKey } from '../config.ts';

export function resolveSecretKey(config: { secretKey: Buffer | undefined; dataDir: string }): Buffer {
  if (config.secretKey) return config.secretKey;
  const file = path.join(config.dataDir, 'secret.key');
  fs.mkdirSync(config.dataDir, { recursive: true });
  try {
    fs.writeFileSync(file, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return parseSecretKey(fs.readFileSync(file, 'utf8').trim())!;
}
